import type { Collection } from 'mongodb';
import { upsertIfNewer, type VersionLocks, type Clock, type UpsertIfNewerResult } from '@berth/inbox';
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
  /** The version leases, the same object for every write of the process (see `upsertIfNewer`). */
  locks: VersionLocks;
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
    owner: options.owner,
    clock: options.clock,
    id: options.id,
    versionField: 'clerkUpdatedAt',
    version: options.updatedAt,
    set: { ...options.fields, clerkSyncedAt: options.clock() },
    guard: { deletedAt: null },
  });
}
