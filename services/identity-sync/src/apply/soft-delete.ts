import type { Collection, Filter, UpdateFilter } from 'mongodb';
import { isDuplicateKeyError, type Clock } from '@berth/inbox';
import type { ClerkSyncedFields } from '../collections';

/** Options for {@link softDelete}. */
export interface SoftDeleteOptions<T extends ClerkSyncedFields> {
  collection: Collection<T>;
  /** The Clerk id, the document's `_id`. */
  id: string;
  /** When Clerk deleted it (the event's `timestamp`). */
  deletedAt: Date;
  /** Fields to write if the document did not exist (its Clerk id field, a membership's workspace and user). */
  tombstoneFields: Record<string, unknown>;
  clock: Clock;
}

/** What {@link softDelete} did. */
export type SoftDeleteResult = 'deleted' | 'tombstoned' | 'already_deleted';

/**
 * Marks a document deleted: `deletedAt` and `clerkUpdatedAt` set to the deletion's time, nothing erased.
 *
 * Decision: a deletion is final. Clerk never reuses a deleted user, organization or membership id, so every change
 * filter requires `deletedAt: null`; a change that arrives after the deletion (a late retry, however recent its
 * `updated_at`) leaves the document deleted. A deletion that arrives before the creation leaves a tombstone, so the
 * creation arriving later writes nothing either. The first deletion's time is kept.
 */
export async function softDelete<T extends ClerkSyncedFields>(
  options: SoftDeleteOptions<T>,
): Promise<SoftDeleteResult> {
  const filter = { _id: options.id, deletedAt: null } as unknown as Filter<T>;
  const update = {
    $set: { deletedAt: options.deletedAt, clerkUpdatedAt: options.deletedAt, clerkSyncedAt: options.clock() },
    $setOnInsert: Object.fromEntries(
      Object.entries(options.tombstoneFields).filter(([, value]) => value !== undefined),
    ),
  } as unknown as UpdateFilter<T>;
  try {
    const result = await options.collection.updateOne(filter, update, { upsert: true });
    return result.upsertedCount === 1 ? 'tombstoned' : result.matchedCount === 1 ? 'deleted' : 'already_deleted';
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  const retry = await options.collection.updateOne(filter, update);
  return retry.matchedCount === 1 ? 'deleted' : 'already_deleted';
}
