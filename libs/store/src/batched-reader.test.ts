import { ObjectId } from 'mongodb';
import { BatchedReader } from './batched-reader';
import { startTestStore, type TestStore } from './test-support/test-store';

interface Row {
  _id: string | ObjectId;
  n: number;
}

let store: TestStore;

beforeAll(async () => {
  store = await startTestStore('store_batched_reader');
});
afterAll(() => store?.stop());

describe('BatchedReader', () => {
  it('answers lookups issued at once from one find, each with its own document or null', async () => {
    const rows = store.db().collection<Row>('rows');
    const hex = new ObjectId();
    await rows.insertMany([
      { _id: 'a', n: 1 },
      { _id: 'b', n: 2 },
      { _id: hex, n: 3 },
      // A string that reads like the ObjectId is another document.
      { _id: hex.toHexString(), n: 4 },
    ]);
    const reader = new BatchedReader(rows);
    const finds = jest.spyOn(rows, 'find');
    const found = await Promise.all(
      ['a', 'b', 'missing', hex, hex.toHexString(), 'a'].map((id) => reader.findById(id)),
    );
    expect(found.map((row) => row?.n ?? null)).toEqual([1, 2, null, 3, 4, 1]);
    // The first lookup leaves alone; the five issued meanwhile share the next find.
    expect(finds).toHaveBeenCalledTimes(2);
  });

  it('sees what its caller wrote before the lookup', async () => {
    const rows = store.db().collection<Row>('rows');
    const reader = new BatchedReader(rows);
    expect(await reader.findById('x')).toBeNull();
    await rows.insertOne({ _id: 'x', n: 9 });
    expect(await reader.findById('x')).toEqual({ _id: 'x', n: 9 });
  });
});
