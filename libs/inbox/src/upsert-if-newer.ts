import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';
import { isDuplicateKeyError } from './mongo-errors';

/** Options for {@link upsertIfNewer}. */
export interface UpsertIfNewerOptions<T extends Document> {
  collection: Collection<T>;
  /** The document's `_id`. */
  id: string;
  /** The field holding the version of what is stored (`clerkUpdatedAt`, `stripeFetchedAt`). */
  versionField: string;
  /** The incoming version; written only if greater than the stored one (or none is stored). */
  version: Date | number;
  /** Fields to write (the version field is added). */
  set: Record<string, unknown>;
  /** Fields written only when the document is created. */
  setOnInsert?: Record<string, unknown>;
  /**
   * Extra equality conditions (e.g. `{ deletedAt: null }`): a document that fails them is left alone, like a newer
   * one. They are copied into a created document, as MongoDB does for equality conditions.
   */
  guard?: Record<string, unknown>;
}

/** What {@link upsertIfNewer} did. */
export type UpsertIfNewerResult = 'inserted' | 'updated' | 'stale';

/**
 * Writes `set` to document `id` only if `version` is newer than the stored version, in one conditional upsert:
 * filter `{ _id, ...guard, $or: [{ v: { $lt: version } }, { v: null }] }`. When the document exists but fails the
 * condition, the upsert tries to insert a second document with the same `_id` and gets a duplicate key error: that
 * is the "stored is newer" answer. A duplicate key can also mean a concurrent first insert won the race; the update
 * is then tried once more without upsert, so the newer of the two still lands.
 *
 * On MongoDB the conditional update is atomic, so a concurrent older write can never overwrite a newer one. On
 * FerretDB 1.24 an update is read-then-replace: two updates of the same existing document at the same instant can
 * still interleave. Sequential, duplicate and out-of-order deliveries are handled on both.
 */
export async function upsertIfNewer<T extends Document>(options: UpsertIfNewerOptions<T>): Promise<UpsertIfNewerResult> {
  const { collection, id, versionField, version } = options;
  const filter = {
    _id: id,
    ...(options.guard ?? {}),
    $or: [{ [versionField]: { $lt: version } }, { [versionField]: null }],
  } as unknown as Filter<T>;
  const update = {
    $set: { ...options.set, [versionField]: version },
    ...(options.setOnInsert ? { $setOnInsert: options.setOnInsert } : {}),
  } as unknown as UpdateFilter<T>;
  try {
    const result = await collection.updateOne(filter, update, { upsert: true });
    if (result.upsertedCount === 1) return 'inserted';
    return result.matchedCount === 1 ? 'updated' : 'stale';
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  const retry = await collection.updateOne(filter, update);
  return retry.matchedCount === 1 ? 'updated' : 'stale';
}
