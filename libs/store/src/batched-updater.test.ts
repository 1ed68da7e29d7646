import { ObjectId } from 'mongodb';
import { BatchedUpdater } from './batched-updater';
import { GroupCommit } from './group-commit';
import { startTestStore, type TestStore } from './test-support/test-store';

interface Row {
  _id: string;
  owner: string | null;
  n: number;
}

let store: TestStore;

beforeAll(async () => {
  store = await startTestStore('store_batched_updater');
});
afterAll(() => store?.stop());

describe('BatchedUpdater', () => {
  it('answers each update of one group with its own outcome', async () => {
    const rows = store.db().collection<Row>('rows');
    await rows.insertMany([
      { _id: 'a', owner: 'x', n: 0 },
      { _id: 'b', owner: 'x', n: 0 },
    ]);
    const updater = new BatchedUpdater(rows);
    const writes = jest.spyOn(rows, 'bulkWrite');
    // Issued in one tick: the first leaves alone, the other four share the next write.
    const results = await Promise.all([
      updater.updateOne({ _id: 'a', owner: 'x' }, { $inc: { n: 1 } }),
      updater.updateOne({ _id: 'b', owner: 'x' }, { $inc: { n: 1 } }),
      updater.updateOne({ _id: 'c', owner: null }, { $set: { n: 7 } }, { upsert: true }),
      // 'a' is held by 'x': the upsert's insert finds the _id taken.
      updater.updateOne({ _id: 'a', owner: 'y' }, { $set: { n: 100 } }, { upsert: true }),
      updater.updateOne({ _id: 'missing', owner: 'x' }, { $set: { n: 1 } }),
    ]);
    expect(results).toEqual(['matched', 'uncertain', 'upserted', 'duplicate', 'uncertain']);
    expect(writes).toHaveBeenCalledTimes(2);
    expect(await rows.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', owner: 'x', n: 1 },
      { _id: 'b', owner: 'x', n: 1 },
      { _id: 'c', owner: null, n: 7 },
    ]);
  });

  it('says matched or unmatched when the whole group agrees', async () => {
    const rows = store.db().collection<Row>('rows');
    await rows.insertMany([
      { _id: 'a', owner: 'x', n: 0 },
      { _id: 'b', owner: 'x', n: 0 },
    ]);
    const updater = new BatchedUpdater(rows);
    const first = updater.updateOne({ _id: 'a', owner: 'x' }, { $inc: { n: 1 } });
    const both = [
      updater.updateOne({ _id: 'a', owner: 'x' }, { $inc: { n: 1 } }),
      updater.updateOne({ _id: 'b', owner: 'x' }, { $inc: { n: 1 } }),
    ];
    expect([await first, ...(await Promise.all(both))]).toEqual(['matched', 'matched', 'matched']);
    const neither = [
      updater.updateOne({ _id: 'a', owner: 'z' }, { $inc: { n: 1 } }),
      updater.updateOne({ _id: 'b', owner: 'z' }, { $inc: { n: 1 } }),
    ];
    expect(await Promise.all(neither)).toEqual(['unmatched', 'unmatched']);
  });

  it('never puts two updates of one _id in the same write, so the second sees the first', async () => {
    const rows = store.db().collection<Row>('rows');
    await rows.insertOne({ _id: 'a', owner: null, n: 0 });
    const updater = new BatchedUpdater(rows);
    // Two takes of one free row: exactly one wins, as when they run one after the other.
    const takes = await Promise.all(
      ['p', 'q', 'r'].map((owner) => updater.updateOne({ _id: 'a', owner: null }, { $set: { owner } })),
    );
    expect(takes.filter((result) => result === 'matched')).toHaveLength(1);
    expect(takes.filter((result) => result === 'unmatched')).toHaveLength(2);
  });

  it('keeps two updates of one ObjectId apart, whichever instance names it', async () => {
    const rows = store.db().collection<{ _id: ObjectId; owner: string | null }>('rows');
    const id = new ObjectId();
    await rows.insertOne({ _id: id, owner: null });
    const updater = new BatchedUpdater(rows);
    // The first write leaves alone; the three takes, issued meanwhile, are gathered behind it.
    const blocker = updater.updateOne({ _id: new ObjectId(), owner: null }, { $set: { owner: 'x' } });
    const takes = await Promise.all(
      ['p', 'q', 'r'].map((owner) =>
        updater.updateOne({ _id: new ObjectId(id.toHexString()), owner: null }, { $set: { owner } }),
      ),
    );
    await blocker;
    expect(takes.filter((result) => result === 'matched')).toHaveLength(1);
    expect(takes.filter((result) => result === 'unmatched')).toHaveLength(2);
  });

  it('fails only the update the store refused', async () => {
    const rows = store.db().collection<Row>('rows');
    await rows.insertOne({ _id: 'a', owner: 'x', n: 0 });
    const updater = new BatchedUpdater(rows);
    const blocker = updater.updateOne({ _id: 'a', owner: 'x' }, { $inc: { n: 1 } });
    const [bad, good] = await Promise.allSettled([
      updater.updateOne({ _id: 'a', owner: 'x' }, { $inc: { owner: 1 } } as never),
      updater.updateOne({ _id: 'b', owner: null }, { $set: { n: 1 } }, { upsert: true }),
    ]);
    await blocker;
    expect(bad.status).toBe('rejected');
    expect(good).toEqual({ status: 'fulfilled', value: 'upserted' });
  });
});

describe('GroupCommit', () => {
  it('writes a lone operation at once and gathers those that arrive meanwhile, up to maxBatch', async () => {
    const groups: number[][] = [];
    const group = new GroupCommit<number, number>({
      maxBatch: 3,
      write: async (ops) => {
        groups.push([...ops]);
        return ops.map((op) => ({ ok: true, value: op * 10 }));
      },
    });
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((op) => group.submit(op)));
    expect(results).toEqual([10, 20, 30, 40, 50, 60]);
    expect(groups).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('rejects every operation of a group whose write failed, and goes on with the next', async () => {
    let calls = 0;
    const group = new GroupCommit<number, number>({
      maxBatch: 10,
      write: async (ops) => {
        if (++calls === 1) throw new Error('store down');
        return ops.map((op) => ({ ok: true, value: op }));
      },
    });
    const [first, second] = await Promise.allSettled([group.submit(1), group.submit(2)]);
    expect(first).toMatchObject({ status: 'rejected', reason: new Error('store down') });
    expect(second).toEqual({ status: 'fulfilled', value: 2 });
  });
});
