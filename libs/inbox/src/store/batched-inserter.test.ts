import type { MongoClient } from 'mongodb';
import { startTestInbox, type TestInbox } from '../test-support/test-inbox';
import { BatchedInserter } from './batched-inserter';

let testInbox: TestInbox;
let mongo: MongoClient;

beforeAll(async () => {
  testInbox = await startTestInbox('batched_inserter');
  mongo = testInbox.client;
}, 60_000);
afterAll(() => testInbox?.stop());

describe('BatchedInserter', () => {
  it('writes concurrent inserts in batches, telling each caller whether its document was new', async () => {
    const collection = mongo.db('batched_inserter').collection<{ _id: string; n: number }>('rows');
    await collection.insertOne({ _id: 'row-3', n: -1 });
    const inserter = new BatchedInserter(collection, 50);
    const results = await Promise.all(Array.from({ length: 300 }, (_, n) => inserter.insert({ _id: `row-${n}`, n })));
    expect(results.filter((result) => result === 'duplicate')).toHaveLength(1);
    expect(results[3]).toBe('duplicate');
    expect(await collection.countDocuments()).toBe(300);
    expect((await collection.findOne({ _id: 'row-3' }))?.n).toBe(-1);
  });
});
