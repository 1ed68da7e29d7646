import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';
import type { BatchedUpdater } from './batched-updater';
import { isDuplicateKeyError } from './duplicate-key';

/** Options for {@link upsertIfNewer}. */
export interface UpsertIfNewerOptions<T extends Document> {
  collection: Collection<T>;
  /** The collection's group commit: with it, the upsert leaves with the process's other updates in one bulk write. */
  updates?: BatchedUpdater<T>;
  /** The document's `_id`. */
  id: string;
  /** The field holding the version of what is stored (`clerkUpdatedAt`, `stripeFetchedAt`). */
  versionField: string;
  /** The incoming version; written only if greater than the stored one (or none is stored). */
  version: Date | number;
  /**
   * Write whatever version is stored, still subject to the guard: for a change that wins over any version, such as
   * a deletion that is final (identity-sync's `softDelete`).
   */
  anyStoredVersion?: boolean;
  /** Fields to write (the version field is added). */
  set: Record<string, unknown>;
  /** Fields written only when the document is created. They must not repeat a field of `set` or the guard. */
  setOnInsert?: Record<string, unknown>;
  /**
   * Extra equality conditions (e.g. `{ deletedAt: null }`, where null also matches a missing field): a document that
   * fails them is left alone, like a newer one. A created document gets them as its fields, as MongoDB's upsert
   * copies a filter's equalities.
   */
  guard?: Record<string, unknown>;
}

/** What {@link upsertIfNewer} did: created the document, updated it, or left it (newer, or failing the guard). */
export type UpsertIfNewerResult = 'inserted' | 'updated' | 'stale';

/**
 * Writes `set` to document `id` only if `version` is newer than the stored version and the guard holds, by one
 * guarded upsert:
 *
 * `updateOne({ _id, ...guard, $or: [{ v: { $lt: version } }, { v: null }] }, { $set, $setOnInsert }, { upsert })`.
 *
 * A document that is older (or has no version) and passes the guard matches and is updated; no document is created;
 * a document that exists but is newer or fails the guard does not match, so the upsert's insert collides with its
 * `_id` (E11000) and the write is `stale`. The store evaluates the condition and the write as one, so any number of
 * writers racing on one document leave the newest version. A writer whose insert lost the race to create the
 * document is told E11000 without its version having been compared, so a first E11000 is tried once more, against
 * the document that now exists. Every write of the version and guard fields must go
 * through here, or be as conditional.
 */
export async function upsertIfNewer<T extends Document>(
  options: UpsertIfNewerOptions<T>,
): Promise<UpsertIfNewerResult> {
  const { versionField, version } = options;
  const filter: Document = { _id: options.id, ...(options.guard ?? {}) };
  if (!options.anyStoredVersion) filter.$or = [{ [versionField]: { $lt: version } }, { [versionField]: null }];
  const update: Document = { $set: { ...options.set, [versionField]: version } };
  if (options.setOnInsert && Object.keys(options.setOnInsert).length > 0) update.$setOnInsert = options.setOnInsert;
  // A first E11000 may come from a writer that created the document while this upsert found none: tried again, the
  // upsert is then evaluated against that document. The server retries only an upsert whose filter is equalities on
  // the unique key alone, which this filter, with its version and guard conditions, is not.
  for (let attempt = 1; ; attempt++) {
    const result = await writeOnce(options, filter as Filter<T>, update as UpdateFilter<T>);
    if (result !== 'duplicate') return result;
    if (attempt === 2) return 'stale';
  }
}

/**
 * The guarded upsert, alone or with the collection's group commit; `duplicate` when its insert found the `_id`
 * taken.
 */
async function writeOnce<T extends Document>(
  options: UpsertIfNewerOptions<T>,
  filter: Filter<T>,
  update: UpdateFilter<T>,
): Promise<UpsertIfNewerResult | 'duplicate'> {
  if (options.updates) {
    const result = await options.updates.updateOne(filter, update, { upsert: true });
    return result === 'upserted' ? 'inserted' : result === 'duplicate' ? 'duplicate' : 'updated';
  }
  try {
    const result = await options.collection.updateOne(filter, update, { upsert: true });
    return result.upsertedCount === 1 ? 'inserted' : 'updated';
  } catch (error) {
    if (isDuplicateKeyError(error)) return 'duplicate';
    throw error;
  }
}
