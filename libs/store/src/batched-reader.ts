import type { Collection, Document, Filter, WithId } from 'mongodb';
import { documentIdKey, type DocumentId } from './document-id';
import { GroupCommit, type GroupOutcome } from './group-commit';

/**
 * Group commit for reads by `_id` on one collection: lookups issued while a read is in flight leave together in the
 * next `find({ _id: { $in } })` (at most `maxBatch`), and each caller gets its own document or null. A lookup is
 * issued after whatever its caller wrote before, so it sees that write, as `findOne` would.
 */
export class BatchedReader<T extends Document> {
  private readonly group: GroupCommit<DocumentId, WithId<T> | null>;

  constructor(collection: Collection<T>, maxBatch = 200) {
    this.group = new GroupCommit({ maxBatch, write: (ids) => readAll(collection, ids) });
  }

  /** The document with this `_id`, or null. */
  findById(id: DocumentId): Promise<WithId<T> | null> {
    return this.group.submit(id);
  }
}

async function readAll<T extends Document>(
  collection: Collection<T>,
  ids: readonly DocumentId[],
): Promise<GroupOutcome<WithId<T> | null>[]> {
  const unique = [...new Map(ids.map((id) => [documentIdKey(id), id])).values()];
  const filter = (unique.length === 1 ? { _id: unique[0] } : { _id: { $in: unique } }) as Filter<T>;
  const found = new Map(
    (await collection.find(filter).toArray()).map((document) => [documentIdKey(document._id), document]),
  );
  return ids.map((id) => ({ ok: true, value: found.get(documentIdKey(id)) ?? null }));
}
