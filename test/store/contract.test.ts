/**
 * The store's contract: what Berth (the inbox, @berth/store, the services and any handler a product team writes)
 * relies on from MongoDB, checked on the store the tests run on. On the embedded store (FerretDB 2 on PostgreSQL
 * with DocumentDB, started here) by default; with BERTH_TEST_MONGO_URL, on that server instead. Each test uses a
 * database of its own.
 *
 * 1. A conditional write has exactly one winner among racing callers, round after round.
 * 2. No update is lost: concurrent `$inc` and `$push` on one document all land.
 * 3. A lease is taken over only once it has expired; renew and release are fenced by the exact lease.
 * 4. Versioned writes keep the newest version; a stale write says so; the guard holds.
 * 5. Unique indexes and duplicate keys behave as MongoDB's (E11000, a missing field indexed as null, `$slice`, a
 *    racing upsert creating one document).
 */
import { ManualClock } from '@berth/contract/testing';
import { randomInt } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import {
  acquireLease,
  isDuplicateKeyError,
  releaseLease,
  renewLease,
  upsertIfNewer,
  type LeaseDocument,
} from '@berth/store';

const mongoUrl = process.env.BERTH_TEST_MONGO_URL;
const RACERS = 20;
const ROUNDS = 50;

let ferret: FerretDbHandle | undefined;
let client: MongoClient;
const databases: Db[] = [];
let counter = 0;

beforeAll(async () => {
  if (!mongoUrl) ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  // A pool wide enough that every racer has a connection of its own: the race happens in the store, not the driver.
  client = await MongoClient.connect(mongoUrl ?? ferret!.url, { maxPoolSize: RACERS * 2 });
}, 120_000);

afterAll(async () => {
  if (mongoUrl) for (const db of databases) await db.dropDatabase().catch(() => undefined);
  await client?.close();
  await ferret?.stop();
});

/** A database of this test's own. */
function freshDb(): Db {
  const db = client.db(`store_contract_${process.pid}_${Date.now().toString(36)}_${++counter}`);
  databases.push(db);
  return db;
}

const racers = Array.from({ length: RACERS }, (_, index) => `racer-${index}`);

describe('1. a conditional write has exactly one winner', () => {
  it(`findOneAndUpdate({ _id, owner: null }) of ${RACERS} racers, ${ROUNDS} rounds`, async () => {
    const claims = freshDb().collection<{ _id: string; owner: string | null }>('claims');
    const winnersPerRound: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const _id = `doc-${round}`;
      await claims.insertOne({ _id, owner: null });
      const results = await Promise.all(
        racers.map((owner) => claims.findOneAndUpdate({ _id, owner: null }, { $set: { owner } })),
      );
      const winners = racers.filter((_, index) => results[index] !== null);
      winnersPerRound.push(winners.length);
      if (winners.length === 1) expect((await claims.findOne({ _id }))?.owner).toBe(winners[0]);
    }
    expect(winnersPerRound).toEqual(Array.from({ length: ROUNDS }, () => 1));
  });

  it(`acquireLease of ${RACERS} racers on one key, ${ROUNDS} rounds (new, then expired)`, async () => {
    const leases = freshDb().collection<LeaseDocument>('leases');
    const time = new ManualClock('2026-01-01T00:00:00Z');
    const winnersPerRound: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.all(
        racers.map((owner) => acquireLease({ leases, key: 'contested', owner, leaseMs: 1000, clock: time })),
      );
      const winners = results.flatMap((result) => (result.acquired ? [result.lease.owner] : []));
      winnersPerRound.push(winners.length);
      if (winners.length === 1) expect((await leases.findOne({ _id: 'contested' }))?.owner).toBe(winners[0]);
      time.advance(1000);
    }
    expect(winnersPerRound).toEqual(Array.from({ length: ROUNDS }, () => 1));
    expect(await leases.countDocuments()).toBe(1);
  });
});

describe('2. no update is lost', () => {
  it(`${RACERS} callers each $inc a counter 10 times`, async () => {
    const counters = freshDb().collection<{ _id: string; n: number }>('counters');
    await counters.insertOne({ _id: 'c', n: 0 });
    await Promise.all(
      racers.map(async () => {
        for (let step = 0; step < 10; step++) await counters.updateOne({ _id: 'c' }, { $inc: { n: 1 } });
      }),
    );
    expect((await counters.findOne({ _id: 'c' }))?.n).toBe(RACERS * 10);
  });

  it(`${RACERS} callers each $push a distinct value`, async () => {
    const lists = freshDb().collection<{ _id: string; values: string[] }>('lists');
    await lists.insertOne({ _id: 'l', values: [] });
    await Promise.all(racers.map((value) => lists.updateOne({ _id: 'l' }, { $push: { values: value } })));
    expect([...((await lists.findOne({ _id: 'l' }))?.values ?? [])].sort()).toEqual([...racers].sort());
  });
});

describe('3. leases', () => {
  it('are taken over only once expired; renew and release are fenced by the exact lease', async () => {
    const leases = freshDb().collection<LeaseDocument>('leases');
    const time = new ManualClock('2026-01-01T00:00:00Z');
    const first = await acquireLease({ leases, key: 'job', owner: 'a', leaseMs: 10_000, clock: time });
    if (!first.acquired) throw new Error('the first caller must get a free lease');
    time.advance(9_999);
    expect(await acquireLease({ leases, key: 'job', owner: 'b', leaseMs: 10_000, clock: time })).toEqual({
      acquired: false,
      holder: 'a',
      remainingMs: 1,
    });
    const renewed = await renewLease({ leases, lease: first.lease, leaseMs: 10_000, clock: time });
    if (!renewed) throw new Error('a live lease must renew');
    // Renewed: the old lease value no longer fences anything.
    expect(await releaseLease({ leases, lease: first.lease, clock: time })).toBe(false);
    time.advance(9_999);
    expect(await acquireLease({ leases, key: 'job', owner: 'b', leaseMs: 10_000, clock: time })).toMatchObject({
      acquired: false,
      holder: 'a',
    });
    time.advance(1);
    const takeover = await acquireLease({ leases, key: 'job', owner: 'b', leaseMs: 10_000, clock: time });
    if (!takeover.acquired) throw new Error('an expired lease must be taken over');
    // The old holder, whose clock has not yet seen its lease run out, can neither renew nor release b's.
    const before = new ManualClock(renewed.until.getTime() - 1);
    expect(await renewLease({ leases, lease: renewed, leaseMs: 10_000, clock: before })).toBeUndefined();
    expect(await releaseLease({ leases, lease: renewed, clock: before })).toBe(false);
    expect(await leases.findOne({ _id: 'job' })).toMatchObject({ owner: 'b', until: takeover.lease.until });
    expect(await releaseLease({ leases, lease: takeover.lease, clock: time })).toBe(true);
    expect(await acquireLease({ leases, key: 'job', owner: 'c', leaseMs: 10_000, clock: time })).toMatchObject({
      acquired: true,
    });
  });
});

describe('4. versioned writes keep the newest', () => {
  it(`${RACERS} racing upsertIfNewer with random versions leave the greatest, ${ROUNDS / 5} rounds`, async () => {
    const documents = freshDb().collection<{ _id: string; v: number; by: string }>('documents');
    const lost: string[] = [];
    for (let round = 0; round < ROUNDS / 5; round++) {
      const id = `doc-${round}`;
      const versions = racers.map(() => randomInt(1, 1_000_000_000));
      await Promise.all(
        racers.map((by, index) =>
          upsertIfNewer({ collection: documents, id, versionField: 'v', version: versions[index]!, set: { by } }),
        ),
      );
      const newest = Math.max(...versions);
      const stored = await documents.findOne({ _id: id });
      if (stored?.v !== newest || stored.by !== racers[versions.indexOf(newest)]) lost.push(`${id}: ${stored?.v}`);
    }
    expect(lost).toEqual([]);
  });

  it('answers stale to an older or equal version and respects the guard', async () => {
    const documents = freshDb().collection<{ _id: string; v?: number; name?: string; deletedAt?: Date | null }>(
      'documents',
    );
    const write = (version: number, name: string) =>
      upsertIfNewer({
        collection: documents,
        id: 'd',
        versionField: 'v',
        version,
        set: { name },
        guard: { deletedAt: null },
      });
    expect(await write(5, 'five')).toBe('inserted');
    expect(await write(4, 'four')).toBe('stale');
    expect(await write(5, 'five again')).toBe('stale');
    expect(await write(6, 'six')).toBe('updated');
    await documents.updateOne({ _id: 'd' }, { $set: { deletedAt: new Date() } });
    expect(await write(7, 'seven')).toBe('stale');
    expect(await documents.findOne({ _id: 'd' })).toMatchObject({ v: 6, name: 'six' });
  });
});

describe('5. unique indexes and duplicate keys as MongoDB does them', () => {
  it('a unique index rejects a second document with the same key (E11000)', async () => {
    const people = freshDb().collection<{ _id: string; email?: string }>('people');
    await people.createIndex({ email: 1 }, { unique: true, name: 'email' });
    await people.insertOne({ _id: 'p1', email: 'a@example.com' });
    const error: unknown = await people.insertOne({ _id: 'p2', email: 'a@example.com' }).catch((e: unknown) => e);
    expect(isDuplicateKeyError(error)).toBe(true);
    expect(await people.countDocuments({ email: 'a@example.com' })).toBe(1);
  });

  it('a unique index on a field accepts only one document lacking it (missing is null)', async () => {
    const people = freshDb().collection<{ _id: string; email?: string }>('people');
    await people.createIndex({ email: 1 }, { unique: true, name: 'email' });
    await people.insertOne({ _id: 'p1' });
    const error: unknown = await people.insertOne({ _id: 'p2' }).catch((e: unknown) => e);
    expect(isDuplicateKeyError(error)).toBe(true);
    expect(await people.countDocuments()).toBe(1);
  });

  it('$push with $each and $slice: -3 keeps the last three', async () => {
    const lists = freshDb().collection<{ _id: string; values: number[] }>('lists');
    await lists.insertOne({ _id: 'l', values: [] });
    for (let value = 1; value <= 5; value++)
      await lists.updateOne({ _id: 'l' }, { $push: { values: { $each: [value], $slice: -3 } } });
    expect((await lists.findOne({ _id: 'l' }))?.values).toEqual([3, 4, 5]);
  });

  it(`a findOneAndUpdate upsert race of ${RACERS} on one new _id leaves one document`, async () => {
    const things = freshDb().collection<{ _id: string; by?: string; tries?: number }>('things');
    const results = await Promise.allSettled(
      racers.map((by) =>
        things.findOneAndUpdate(
          { _id: 'new' },
          { $setOnInsert: { by }, $inc: { tries: 1 } },
          { upsert: true, returnDocument: 'after' },
        ),
      ),
    );
    // MongoDB retries an upsert on `_id` that lost the insert race, so every racer lands, on one document.
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(await things.countDocuments()).toBe(1);
    expect((await things.findOne({ _id: 'new' }))?.tries).toBe(RACERS);
  });

  it('an upsert whose filter misses an existing _id fails with a duplicate key, and writes nothing', async () => {
    const things = freshDb().collection<{ _id: string; state: string }>('things');
    await things.insertOne({ _id: 't', state: 'done' });
    const conditional = { _id: 't', state: 'open' };
    const update = { $set: { state: 'claimed' } };
    const byUpdate: unknown = await things.updateOne(conditional, update, { upsert: true }).catch((e: unknown) => e);
    expect(byUpdate).toMatchObject({ code: 11000 });
    const byFind: unknown = await things
      .findOneAndUpdate(conditional, update, { upsert: true })
      .catch((e: unknown) => e);
    // MongoDB answers E11000; the embedded store InternalError (code 1) with PostgreSQL's unique-violation message,
    // which the repository's one duplicate-key check also recognises.
    expect(isDuplicateKeyError(byFind)).toBe(true);
    expect(await things.find().toArray()).toEqual([{ _id: 't', state: 'done' }]);
  });
});
