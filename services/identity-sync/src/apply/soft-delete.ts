import type { ClerkSyncedFields } from '../collections';
import { writeClerkVersion, type ClerkDocumentTarget } from './clerk-versioned-write';

/** Options for {@link softDelete}. */
export interface SoftDeleteOptions<T extends ClerkSyncedFields> extends ClerkDocumentTarget<T> {
  /** When Clerk deleted it (the event's `timestamp`). */
  deletedAt: Date;
  /** Fields to write if the document did not exist (its Clerk id field, a membership's workspace and user). */
  tombstoneFields: Record<string, unknown>;
}

/** What {@link softDelete} did. */
export type SoftDeleteResult = 'deleted' | 'tombstoned' | 'already_deleted';

/**
 * Marks a document deleted: `deletedAt` and `clerkUpdatedAt` set to the deletion's time, nothing erased.
 *
 * Decision: a deletion is final. Clerk never reuses a deleted user, organization or membership id, so every change
 * requires `deletedAt: null`; a change that arrives after the deletion (a late retry, however recent its
 * `updated_at`) leaves the document deleted. A deletion that arrives before the creation leaves a tombstone, so the
 * creation arriving later writes nothing either. The first deletion's time is kept.
 *
 * Written as the changes are (`writeClerkVersion`): one guarded upsert on `{ _id, deletedAt: null }`, over any stored
 * version (`anyStoredVersion`: the deletion wins over all). The store evaluates the guard and the write as one, so a
 * change of the same document applied at the same moment can never restore `deletedAt: null`.
 */
export async function softDelete<T extends ClerkSyncedFields>(
  options: SoftDeleteOptions<T>,
): Promise<SoftDeleteResult> {
  const result = await writeClerkVersion(options, {
    version: options.deletedAt,
    anyStoredVersion: true,
    set: { deletedAt: options.deletedAt, clerkSyncedAt: options.clock.now() },
    setOnInsert: Object.fromEntries(Object.entries(options.tombstoneFields).filter(([, value]) => value !== undefined)),
  });
  return result === 'inserted' ? 'tombstoned' : result === 'updated' ? 'deleted' : 'already_deleted';
}
