import type { Collection } from 'mongodb';
import { upsertIfNewer, type Clock, type UpsertIfNewerResult } from '@berth/inbox';
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
  clock: Clock;
}

/**
 * Applies a created/updated change if it is newer than what is stored and the document is not deleted, in one
 * conditional upsert: filter `{ _id, deletedAt: null, $or: [{ clerkUpdatedAt: { $lt: updatedAt } }, { clerkUpdatedAt: null }] }`
 * (see `upsertIfNewer` for the duplicate-key handling that keeps a racing older change from winning). An older or
 * equal change, or any change to a deleted document, writes nothing: `stale`. Other fields of the document (a
 * workspace's `billing`) are never touched.
 */
export function applyClerkChange<T extends ClerkSyncedFields>(options: ApplyClerkChangeOptions<T>): Promise<UpsertIfNewerResult> {
  return upsertIfNewer({
    collection: options.collection,
    id: options.id,
    versionField: 'clerkUpdatedAt',
    version: options.updatedAt,
    set: { ...options.fields, clerkSyncedAt: options.clock() },
    guard: { deletedAt: null },
  });
}
