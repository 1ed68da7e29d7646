import type { Collection } from 'mongodb';
import {
  upsertIfNewer,
  type Clock,
  type UpsertIfNewerOptions,
  type UpsertIfNewerResult,
  type VersionLocks,
} from '@berth/inbox';
import type { ClerkSyncedFields } from '../collections';

/** Which document a Clerk change writes, and with what. */
export interface ClerkDocumentTarget<T extends ClerkSyncedFields> {
  collection: Collection<T>;
  /** The Clerk id, the document's `_id`. */
  id: string;
  /** The version leases, the same object for every write of the process (see `upsertIfNewer`). */
  locks: VersionLocks;
  /** This replica's id. */
  owner: string;
  clock: Clock;
}

/**
 * Writes a Clerk change by the one rule every identity write follows: versioned by Clerk's time of the change
 * (`clerkUpdatedAt`), and never to a deleted document (`deletedAt: null`), through `upsertIfNewer`. Changes and
 * deletions of a document thus take the same version leases and share the process's memory of its writes.
 */
export function writeClerkVersion<T extends ClerkSyncedFields>(
  target: ClerkDocumentTarget<T>,
  write: Pick<UpsertIfNewerOptions<T>, 'version' | 'set' | 'setOnInsert' | 'anyStoredVersion'>,
): Promise<UpsertIfNewerResult> {
  return upsertIfNewer({
    collection: target.collection,
    locks: target.locks,
    owner: target.owner,
    clock: target.clock,
    id: target.id,
    versionField: 'clerkUpdatedAt',
    guard: { deletedAt: null },
    ...write,
  });
}
