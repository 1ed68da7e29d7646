import { BatchedInserter } from './batched-inserter';
import { isDuplicateKeyError } from './duplicate-key';
import { ensureIndexes } from './ensure-indexes';
import { startTestStore, type TestStore } from './test-support/test-store';

let store: TestStore;

beforeAll(async () => {
  store = await startTestStore('store_keys');
});
afterAll(() => store?.stop());

describe('isDuplicateKeyError', () => {
  it('is true for a taken _id or unique key, false for other failures and values', async () => {
    const collection = store.db().collection<{ _id: string; email?: string }>('people');
    await ensureIndexes(collection, [{ key: { email: 1 }, name: 'email', unique: true }]);
    await collection.insertOne({ _id: 'p1', email: 'a@example.com' });
    const takenId: unknown = await collection.insertOne({ _id: 'p1' }).catch((error: unknown) => error);
    const takenEmail: unknown = await collection
      .insertOne({ _id: 'p2', email: 'a@example.com' })
      .catch((error: unknown) => error);
    const otherFailure: unknown = await collection
      .updateOne({ _id: 'p1' }, { $set: { email: 'b@example.com' }, $unset: { email: '' } })
      .catch((error: unknown) => error);
    expect(isDuplicateKeyError(takenId)).toBe(true);
    expect(isDuplicateKeyError(takenEmail)).toBe(true);
    expect(otherFailure).toBeInstanceOf(Error);
    expect(isDuplicateKeyError(otherFailure)).toBe(false);
    // An upsert whose filter misses an existing _id: E11000 from updateOne; findOneAndUpdate's code differs by store.
    const missedByUpdate: unknown = await collection
      .updateOne({ _id: 'p1', email: 'other@example.com' }, { $set: { email: 'c@example.com' } }, { upsert: true })
      .catch((error: unknown) => error);
    const missedByFind: unknown = await collection
      .findOneAndUpdate(
        { _id: 'p1', email: 'other@example.com' },
        { $set: { email: 'c@example.com' } },
        { upsert: true },
      )
      .catch((error: unknown) => error);
    expect(isDuplicateKeyError(missedByUpdate)).toBe(true);
    expect(isDuplicateKeyError(missedByFind)).toBe(true);
    expect(isDuplicateKeyError({ code: 1, errmsg: 'some other internal error' })).toBe(false);
    expect(isDuplicateKeyError(undefined)).toBe(false);
    expect(isDuplicateKeyError({ code: '11000' })).toBe(false);
  });
});

describe('ensureIndexes', () => {
  it('creates the missing indexes by name, on a new collection, and is idempotent', async () => {
    const collection = store.db().collection('indexed');
    await ensureIndexes(collection, [{ key: { a: 1 }, name: 'a' }]);
    await ensureIndexes(collection, [
      { key: { a: 1 }, name: 'a' },
      { key: { b: 1, c: -1 }, name: 'b_c' },
    ]);
    const names = (await collection.listIndexes().toArray()).map((index) => String(index.name)).sort();
    expect(names).toEqual(['_id_', 'a', 'b_c']);
  });
});

describe('BatchedInserter', () => {
  it('writes concurrent inserts in batches, telling each caller whether its document was new', async () => {
    const collection = store.db().collection<{ _id: string; n: number }>('rows');
    await collection.insertOne({ _id: 'row-3', n: -1 });
    const inserter = new BatchedInserter(collection, 50);
    const results = await Promise.all(Array.from({ length: 300 }, (_, n) => inserter.insert({ _id: `row-${n}`, n })));
    expect(results.filter((result) => result === 'duplicate')).toHaveLength(1);
    expect(results[3]).toBe('duplicate');
    expect(await collection.countDocuments()).toBe(300);
    expect((await collection.findOne({ _id: 'row-3' }))?.n).toBe(-1);
  });
});
