import type { Collection } from 'mongodb';
import {
  upsertIfNewer,
  type BatchedInserter,
  type Clock,
  type LeaseCollection,
  type LeaseDocument,
  type UpsertIfNewerResult,
} from '@berth/inbox';
import type { ClerkSyncedFields } from '../collections';

/** Options for {@link applyClerkChange}. */
export interface ApplyClerkChangeOptions<T extends ClerkSyncedFields> {
  collection: Collection<T>;
  /** The Clerk id, the document's `_id`. */
  id: string;
  /** Clerk's `updated_at` of this change. */
  updatedAt: Date;
  /** The fields the change sets. */
  fields: Record<string, unknown>;
  /** Write leases (see `upsertIfNewer`). */
  locks: LeaseCollection;
  /** The group commit of `locks`' inserts, shared by the process's writers (`upsertIfNewer`'s `lockInserts`). */
  lockInserts?: BatchedInserter<LeaseDocument>;
  /** This replica's id. */
  owner: string;
  clock: Clock;
}

/**
 * Applies a created/updated change if it is newer than what is stored (`clerkUpdatedAt`) and the document is not
 * deleted, by `_id` only, under a lease on the stored version (see `upsertIfNewer`), so two changes of one document
 * applied at once by different events still leave the newer. An older or equal change, or any change to a deleted
 * document, writes nothing: `stale`. Other fields of the document (a workspace's `billing`) are never touched.
 */
export function applyClerkChange<T extends ClerkSyncedFields>(
  options: ApplyClerkChangeOptions<T>,
): Promise<UpsertIfNewerResult> {
  return upsertIfNewer({
    collection: options.collection,
    locks: options.locks,
    lockInserts: options.lockInserts,
    owner: options.owner,
    clock: options.clock,
    id: options.id,
    versionField: 'clerkUpdatedAt',
    version: options.updatedAt,
    set: { ...options.fields, clerkSyncedAt: options.clock() },
    guard: { deletedAt: null },
  });
}
