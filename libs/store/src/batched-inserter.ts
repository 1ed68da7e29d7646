import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { assertAccounted, writeErrorsByIndex } from './bulk-write-errors';
import { isDuplicateKeyError } from './duplicate-key';
import { GroupCommit, type GroupOutcome } from './group-commit';

/** How one document's insert ended: written, or already there (its `_id`, or another unique key, was taken). */
export type InsertResult = 'inserted' | 'duplicate';

/**
 * Group commit for MongoDB inserts: documents inserted while a write is in flight leave together in the next
 * `insertMany` (unordered, at most `maxBatch`), and each caller's promise settles with its own document's result
 * (`duplicate` when a unique key was taken). For insert-only writes (the dispatcher's delivery log, the inbox's
 * first claim of a new event); updates go through {@link BatchedUpdater}.
 */
export class BatchedInserter<T extends Document> {
  private readonly group: GroupCommit<T, InsertResult>;

  constructor(collection: Collection<T>, maxBatch = 200) {
    this.group = new GroupCommit({ maxBatch, write: (documents) => insertAll(collection, documents) });
  }

  /** Inserts `document`; resolves once it is written (or found already written). */
  insert(document: T): Promise<InsertResult> {
    return this.group.submit(document);
  }
}

async function insertAll<T extends Document>(
  collection: Collection<T>,
  documents: readonly T[],
): Promise<GroupOutcome<InsertResult>[]> {
  try {
    await collection.insertMany(documents as OptionalUnlessRequiredId<T>[], { ordered: false });
    return documents.map(() => ({ ok: true, value: 'inserted' }));
  } catch (error) {
    const errors = writeErrorsByIndex(error);
    const inserted = (error as { result?: { insertedCount?: number } }).result?.insertedCount ?? 0;
    assertAccounted(error, inserted + errors.size, documents.length);
    return documents.map((_, index): GroupOutcome<InsertResult> => {
      const failed = errors.get(index);
      if (failed === undefined) return { ok: true, value: 'inserted' };
      return isDuplicateKeyError(failed) ? { ok: true, value: 'duplicate' } : { ok: false, error: failed };
    });
  }
}
