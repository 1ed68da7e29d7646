import type { AnyBulkWriteOperation, BulkWriteResult, Collection, Document, Filter, UpdateFilter } from 'mongodb';
import { assertAccounted, writeErrorsByIndex, type BulkOperationError } from './bulk-write-errors';
import { documentIdKey } from './document-id';
import { isDuplicateKeyError } from './duplicate-key';
import { GroupCommit, type GroupOutcome } from './group-commit';

/**
 * How one `updateOne` of a group ended. An upsert is `upserted`, `matched` or `duplicate` (its insert found the
 * `_id` taken: the filter did not match an existing document). A bulk write counts the documents it matched for the
 * whole group, not per operation, so when some plain updates matched and others did not, which is which is
 * `uncertain`: the caller reads the document to know (its update, if applied, is there to be seen).
 */
export type UpdateResult = 'matched' | 'unmatched' | 'upserted' | 'duplicate' | 'uncertain';

interface UpdateOp<T extends Document> {
  filter: Filter<T>;
  update: UpdateFilter<T>;
  upsert: boolean;
}

/**
 * Group commit for MongoDB `updateOne`s on one collection: updates issued while a write is in flight leave together
 * in the next unordered `bulkWrite` (at most `maxBatch`), and each caller's promise settles with its own
 * {@link UpdateResult}. Updates of the same `_id` never share a write, so each sees the one before it. Every
 * operation keeps its own filter, so a fenced update (a lease holder's) stays exactly as conditional as alone.
 */
export class BatchedUpdater<T extends Document> {
  private readonly group: GroupCommit<UpdateOp<T>, UpdateResult>;

  constructor(collection: Collection<T>, maxBatch = 200) {
    this.group = new GroupCommit({
      maxBatch,
      keyOf: (op) => documentIdKey((op.filter as { _id?: unknown })._id),
      write: (ops) => updateAll(collection, ops),
    });
  }

  /** `updateOne(filter, update, { upsert })`, written with the other updates pending; `filter` names an `_id`. */
  updateOne(filter: Filter<T>, update: UpdateFilter<T>, options: { upsert?: boolean } = {}): Promise<UpdateResult> {
    return this.group.submit({ filter, update, upsert: options.upsert ?? false });
  }
}

async function updateAll<T extends Document>(
  collection: Collection<T>,
  ops: readonly UpdateOp<T>[],
): Promise<GroupOutcome<UpdateResult>[]> {
  const writes = ops.map((op): AnyBulkWriteOperation<T> => ({
    updateOne: { filter: op.filter, update: op.update, upsert: op.upsert },
  }));
  let result: BulkWriteResult;
  let errors = new Map<number, BulkOperationError>();
  let thrown: unknown;
  try {
    result = await collection.bulkWrite(writes, { ordered: false });
  } catch (error) {
    errors = writeErrorsByIndex(error);
    result = (error as { result: BulkWriteResult }).result;
    thrown = error;
  }
  const upserted = new Set(Object.keys(result.upsertedIds ?? {}).map(Number));
  // An upsert that neither failed nor inserted matched; the rest of the group's matches are the plain updates'.
  const settled = (index: number): boolean => !errors.has(index) && !upserted.has(index);
  const upsertsMatched = ops.filter((op, index) => op.upsert && settled(index)).length;
  const updates = ops.filter((op, index) => !op.upsert && settled(index)).length;
  const updatesMatched = result.matchedCount - upsertsMatched;
  // A write that threw part-way may have run only some operations: the upserts taken as matched must all be among
  // the matches counted, or nothing about the group is known. (A plain update that never ran reads as unmatched or
  // uncertain, which its caller already treats as not applied or reads back.)
  if (thrown !== undefined) assertAccounted(thrown, result.matchedCount, upsertsMatched);
  const update: UpdateResult =
    updatesMatched === updates ? 'matched' : updatesMatched === 0 ? 'unmatched' : 'uncertain';
  return ops.map((op, index): GroupOutcome<UpdateResult> => {
    const failed = errors.get(index);
    if (failed !== undefined)
      return isDuplicateKeyError(failed) ? { ok: true, value: 'duplicate' } : { ok: false, error: failed };
    if (upserted.has(index)) return { ok: true, value: 'upserted' };
    return { ok: true, value: op.upsert ? 'matched' : update };
  });
}
