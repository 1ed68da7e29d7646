import type { Collection } from 'mongodb';
import type { Clock } from '@berth/contract';
import { upsertIfNewer, type BatchedUpdater, type UpsertIfNewerOptions, type UpsertIfNewerResult } from '@berth/store';
import type { ClerkSyncedFields } from '../collections';

/** Which document a Clerk change writes, and with what. */
export interface ClerkDocumentTarget<T extends ClerkSyncedFields> {
  collection: Collection<T>;
  /** The collection's group commit, shared by the events this process applies at once. */
  updates?: BatchedUpdater<T>;
  /** The Clerk id, the document's `_id`. */
  id: string;
  clock: Clock;
}

/**
 * Writes a Clerk change by the one rule every identity write follows: versioned by Clerk's time of the change
 * (`clerkUpdatedAt`), and never to a deleted document (`deletedAt: null`), through `upsertIfNewer` of
 * `@berth/store`: one guarded upsert on `{ _id, deletedAt: null, clerkUpdatedAt older }`, which the store evaluates
 * as one write, so changes and deletions of one document racing each other leave the newest.
 */
export function writeClerkVersion<T extends ClerkSyncedFields>(
  target: ClerkDocumentTarget<T>,
  write: Pick<UpsertIfNewerOptions<T>, 'version' | 'set' | 'setOnInsert' | 'anyStoredVersion'>,
): Promise<UpsertIfNewerResult> {
  return upsertIfNewer({
    collection: target.collection,
    updates: target.updates,
    id: target.id,
    versionField: 'clerkUpdatedAt',
    guard: { deletedAt: null },
    ...write,
  });
}
