import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { DUPLICATE_KEY_ERROR_CODE } from './duplicate-key';

/** How one document's insert ended: written, or already there (its `_id`, or another unique key, was taken). */
export type InsertResult = 'inserted' | 'duplicate';

interface Pending<T> {
  document: T;
  resolve: (result: InsertResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for MongoDB inserts: documents inserted while a write is in flight leave together in the next
 * `insertMany` (unordered, at most `maxBatch`), and each caller's promise settles with its own document's result
 * (`duplicate` when a unique key was taken). One write at a time per inserter, so a burst of inserts costs the store
 * a few round trips instead of one each; a lone document is written at once, so an idle process adds no latency.
 * For insert-only logs (the dispatcher's delivery log); never for updates.
 */
export class BatchedInserter<T extends Document> {
  private queue: Pending<T>[] = [];
  private writing = false;

  constructor(
    private readonly collection: Collection<T>,
    private readonly maxBatch = 200,
  ) {}

  /** Inserts `document`; resolves once it is written (or found already written). */
  insert(document: T): Promise<InsertResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ document, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        await this.write(batch);
      }
    } finally {
      this.writing = false;
    }
  }

  private async write(batch: Pending<T>[]): Promise<void> {
    try {
      await this.collection.insertMany(
        batch.map((pending) => pending.document as OptionalUnlessRequiredId<T>),
        { ordered: false },
      );
      batch.forEach((pending) => pending.resolve('inserted'));
    } catch (error) {
      const writeErrors = (
        error as { writeErrors?: { index: number; code?: number }[] | { index: number; code?: number } }
      ).writeErrors;
      if (writeErrors === undefined) {
        batch.forEach((pending) => pending.reject(error));
        return;
      }
      const byIndex = new Map(
        (Array.isArray(writeErrors) ? writeErrors : [writeErrors]).map((entry) => [entry.index, entry.code]),
      );
      batch.forEach((pending, index) => {
        if (!byIndex.has(index)) pending.resolve('inserted');
        else if (byIndex.get(index) === DUPLICATE_KEY_ERROR_CODE) pending.resolve('duplicate');
        else pending.reject(error);
      });
    }
  }
}
