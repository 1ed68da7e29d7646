import type { Collection } from 'mongodb';
import { isDuplicateKeyError } from './duplicate-key';
import { BatchedUpdater } from './batched-updater';
import { upsertIfNewer, type UpsertIfNewerOptions } from './upsert-if-newer';
import { startTestStore, type TestStore } from './test-support/test-store';

interface Versioned {
  _id: string;
  v?: number | Date;
  name?: string;
  createdBy?: string;
  deletedAt?: Date | null;
}

let store: TestStore;

beforeAll(async () => {
  store = await startTestStore('store_upsert');
});
afterAll(() => store?.stop());

function documents(): Collection<Versioned> {
  return store.db().collection<Versioned>('documents');
}

describe.each([
  ['alone', false],
  ['group-committed', true],
])('upsertIfNewer, %s', (_name, grouped) => {
  // One group commit per collection, shared by every write to it in a test, as a service keeps one per process.
  const updaters = new Map<Collection<Versioned>, BatchedUpdater<Versioned>>();
  const upsert = (options: UpsertIfNewerOptions<Versioned>) => {
    if (!grouped) return upsertIfNewer(options);
    if (!updaters.has(options.collection)) updaters.set(options.collection, new BatchedUpdater(options.collection));
    return upsertIfNewer({ ...options, updates: updaters.get(options.collection) });
  };

  it('inserts, updates with a newer version, and answers stale for an older or equal one', async () => {
    const collection = documents();
    const write = (version: number, name: string) =>
      upsert({
        collection,
        id: 'd1',
        versionField: 'v',
        version,
        set: { name },
        setOnInsert: { createdBy: name },
      });
    expect(await write(2, 'two')).toBe('inserted');
    expect(await write(3, 'three')).toBe('updated');
    expect(await write(1, 'one')).toBe('stale');
    expect(await write(3, 'three again')).toBe('stale');
    expect(await collection.findOne({ _id: 'd1' })).toEqual({ _id: 'd1', v: 3, name: 'three', createdBy: 'two' });
  });

  it('updates a document that has no version yet', async () => {
    const collection = documents();
    await collection.insertOne({ _id: 'd2', name: 'by hand' });
    const at = new Date('2026-01-01T00:00:00Z');
    expect(await upsert({ collection, id: 'd2', versionField: 'v', version: at, set: { name: 'x' } })).toBe('updated');
    expect(await collection.findOne({ _id: 'd2' })).toEqual({ _id: 'd2', v: at, name: 'x' });
  });

  it('keeps the newest of 12 concurrent writers of one document', async () => {
    const collection = documents();
    for (let round = 0; round < 10; round++) {
      const versions = Array.from({ length: 12 }, () => 1 + Math.floor(Math.random() * 1_000_000));
      const results = await Promise.all(
        versions.map((version) =>
          upsert({ collection, id: `race-${round}`, versionField: 'v', version, set: { name: `v${version}` } }),
        ),
      );
      const newest = Math.max(...versions);
      expect(await collection.findOne({ _id: `race-${round}` })).toEqual({
        _id: `race-${round}`,
        v: newest,
        name: `v${newest}`,
      });
      expect(results.filter((result) => result === 'inserted')).toHaveLength(1);
    }
  });

  it('leaves a document that fails the guard alone, and copies the guard into a created one', async () => {
    const collection = documents();
    const guarded = (id: string, version: number) =>
      upsert({
        collection,
        id,
        versionField: 'v',
        version,
        set: { name: `v${version}` },
        guard: { deletedAt: null },
      });
    expect(await guarded('g1', 1)).toBe('inserted');
    expect(await collection.findOne({ _id: 'g1' })).toEqual({ _id: 'g1', v: 1, name: 'v1', deletedAt: null });
    expect(await guarded('g1', 2)).toBe('updated');
    await collection.updateOne({ _id: 'g1' }, { $set: { deletedAt: new Date(0) } });
    expect(await guarded('g1', 3)).toBe('stale');
    expect(await collection.findOne({ _id: 'g1' })).toMatchObject({ v: 2, name: 'v2' });
    // A missing guard field counts as null, as in any MongoDB equality on null.
    await collection.insertOne({ _id: 'g2', v: 1 });
    expect(await guarded('g2', 2)).toBe('updated');
  });

  it('writes over any stored version with anyStoredVersion, still under the guard', async () => {
    const collection = documents();
    const deletedAt = new Date('2026-01-01T00:00:00Z');
    const remove = (id: string, at: Date) =>
      upsert({
        collection,
        id,
        versionField: 'v',
        version: at,
        anyStoredVersion: true,
        set: { deletedAt: at },
        setOnInsert: { name: 'tombstone' },
        guard: { deletedAt: null },
      });
    await collection.insertOne({ _id: 'a1', v: new Date('2027-01-01T00:00:00Z'), name: 'newer than the deletion' });
    expect(await remove('a1', deletedAt)).toBe('updated');
    expect(await collection.findOne({ _id: 'a1' })).toEqual({
      _id: 'a1',
      v: deletedAt,
      name: 'newer than the deletion',
      deletedAt,
    });
    expect(await remove('a1', new Date('2026-06-01T00:00:00Z'))).toBe('stale');
    expect(await collection.findOne({ _id: 'a1' })).toMatchObject({ deletedAt });
    expect(await remove('a2', deletedAt)).toBe('inserted');
    expect(await collection.findOne({ _id: 'a2' })).toEqual({ _id: 'a2', v: deletedAt, name: 'tombstone', deletedAt });
  });

  it('rethrows failures other than a duplicate key', async () => {
    const collection = documents();
    const conflicting = { collection, id: 'bad', versionField: 'v', version: 1, set: { name: 'a' } };
    // The same path in $set and $setOnInsert: the store refuses the update itself.
    const error: unknown = await upsert({ ...conflicting, setOnInsert: { name: 'b' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(isDuplicateKeyError(error)).toBe(false);
    expect(await collection.countDocuments({ _id: 'bad' })).toBe(0);
  });
});
