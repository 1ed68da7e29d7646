import { systemClock } from '@berth/contract';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import type { ClerkSyncedFields } from '../collections';
import { applyClerkChange } from './apply-clerk-change';
import { softDelete } from './soft-delete';

const T = Date.parse('2030-01-01T00:00:00Z');
const clock = systemClock;
let ferret: FerretDbHandle;
let client: MongoClient;
let db: Db;
let users: Collection<ClerkSyncedFields & { name?: string }>;

beforeAll(async () => {
  ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  client = await MongoClient.connect(ferret.url, { maxPoolSize: 16 });
  db = client.db(`soft_delete_test_${process.pid}`);
  users = db.collection('users');
});
afterAll(async () => {
  await client?.close();
  await ferret?.stop();
});

const remove = (id: string, at: number) =>
  softDelete({
    collection: users,
    id,
    deletedAt: new Date(at),
    tombstoneFields: { clerkUserId: id },
    clock,
  });
const change = (id: string, at: number) =>
  applyClerkChange({
    collection: users,
    id,
    updatedAt: new Date(at),
    fields: { name: `v${at}` },
    clock,
  });

describe('softDelete', () => {
  it('deletes once, keeps the first deletion, and leaves a tombstone for a document never seen', async () => {
    expect(await change('user_a', T)).toBe('inserted');
    expect(await remove('user_a', T + 10)).toBe('deleted');
    expect(await remove('user_a', T + 20)).toBe('already_deleted');
    expect(await change('user_a', T + 30)).toBe('stale');
    expect(await users.findOne({ _id: 'user_a' })).toMatchObject({ deletedAt: new Date(T + 10), name: `v${T}` });
    expect(await remove('user_b', T)).toBe('tombstoned');
    expect(await change('user_b', T - 10)).toBe('stale');
    expect(await users.findOne({ _id: 'user_b' })).toMatchObject({ clerkUserId: 'user_b', deletedAt: new Date(T) });
  });

  it('deletes whatever version is stored: a deletion is final, even one older than the last change', async () => {
    expect(await change('user_c', T + 100)).toBe('inserted');
    expect(await remove('user_c', T)).toBe('deleted');
    expect((await users.findOne({ _id: 'user_c' }))?.deletedAt).toEqual(new Date(T));
  });

  it('is never undone by a change of the same document applied at the same moment', async () => {
    // A store whose conditional update is a read-modify-write (FerretDB 1.24) let a change racing the deletion
    // restore deletedAt: null; the guarded upsert must be evaluated as one write.
    const rounds = 30;
    for (let round = 0; round < rounds; round++) {
      const id = `user_race_${round}`;
      expect(await change(id, T)).toBe('inserted');
      await Promise.all([remove(id, T + 50), change(id, T + 10), change(id, T + 20), change(id, T + 30)]);
    }
    const undone = await users
      .find({ _id: { $regex: '^user_race_' }, deletedAt: null } as never)
      .map((user) => user._id)
      .toArray();
    expect(undone).toEqual([]);
  });
});
