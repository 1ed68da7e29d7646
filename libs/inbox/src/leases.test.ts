import { MongoClient, type Collection, type CommandStartedEvent, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import {
  acquireLease,
  BatchedInserter,
  ensureLeaseIndexes,
  releaseLease,
  renewLease,
  upsertIfNewer,
  VersionLocks,
  WrittenVersions,
  type LeaseCollection,
  type LeaseDocument,
} from './index';
import { waitFor } from '@berth/local-infra/testing';
import { manualClock } from './testing';

let ferret: FerretDbHandle;
let client: MongoClient;
let db: Db;
let leases: LeaseCollection;

beforeAll(async () => {
  ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  client = await MongoClient.connect(ferret.url, { maxPoolSize: 32 });
  db = client.db(`inbox_leases_test_${process.pid}`);
  leases = db.collection<LeaseDocument>('leases');
  await ensureLeaseIndexes({ leases });
  await ensureLeaseIndexes({ leases });
});
afterAll(async () => {
  await client?.close();
  await ferret?.stop();
});

/** Runs `body` on this file's database through a second client that hands `onCommand` every command it sends. */
async function withMonitoredDb(
  onCommand: (event: CommandStartedEvent) => void,
  body: (target: Db) => Promise<void>,
): Promise<void> {
  const monitored = await MongoClient.connect(ferret.url, { monitorCommands: true });
  monitored.on('commandStarted', onCommand);
  try {
    await body(monitored.db(db.databaseName));
  } finally {
    await monitored.close();
  }
}

/** A sent command as `<command> <collection>`. */
function commandLine(event: CommandStartedEvent): string {
  return `${event.commandName} ${String(event.command[event.commandName])}`;
}

describe('leases', () => {
  it('is held by one owner until released, then taken by the next generation', async () => {
    const time = manualClock();
    const first = await acquireLease({ leases, key: 'k1', owner: 'a', leaseMs: 5000, clock: time.clock });
    expect(first).toMatchObject({ acquired: true, lease: { generation: 1, owner: 'a' } });
    time.advance(1000);
    expect(await acquireLease({ leases, key: 'k1', owner: 'b', leaseMs: 5000, clock: time.clock })).toEqual({
      acquired: false,
      holder: 'a',
      remainingMs: 4000,
    });
    if (!first.acquired) throw new Error('unreachable');
    expect(await renewLease({ leases, lease: first.lease, leaseMs: 5000, clock: time.clock })).toBe(true);
    expect(first.lease.until).toEqual(new Date(time.clock().getTime() + 5000));
    await releaseLease({ leases, lease: first.lease, clock: time.clock });
    expect(await renewLease({ leases, lease: first.lease, leaseMs: 5000, clock: time.clock })).toBe(false);
    expect(await acquireLease({ leases, key: 'k1', owner: 'b', leaseMs: 5000, clock: time.clock })).toMatchObject({
      acquired: true,
      lease: { generation: 2, owner: 'b' },
    });
  });

  it('finds the newest generation from a stale hint by walking forward, and keeps a held lease', async () => {
    const time = manualClock();
    for (let generation = 1; generation <= 3; generation++) {
      const taken = await acquireLease({
        leases,
        key: 'hinted',
        owner: `o${generation}`,
        leaseMs: 5000,
        clock: time.clock,
        generationHint: 1,
      });
      expect(taken).toMatchObject({ acquired: true, lease: { generation } });
      if (generation < 3 && taken.acquired) await releaseLease({ leases, lease: taken.lease, clock: time.clock });
    }
    expect(
      await acquireLease({ leases, key: 'hinted', owner: 'late', leaseMs: 5000, clock: time.clock, generationHint: 2 }),
    ).toEqual({ acquired: false, holder: 'o3', remainingMs: 5000 });
    time.advance(6000);
    expect(
      await acquireLease({ leases, key: 'hinted', owner: 'late', leaseMs: 5000, clock: time.clock, generationHint: 1 }),
    ).toMatchObject({ acquired: true, lease: { generation: 4 } });
  });

  it('gives a contested lease to exactly one of many replicas', async () => {
    const time = manualClock();
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          acquireLease({ leases, key: `race-${round}`, owner: `r${index}`, leaseMs: 5000, clock: time.clock }),
        ),
      );
      expect(results.filter((result) => result.acquired)).toHaveLength(1);
    }
  });

  it('prunes generations that ended long ago when asked', async () => {
    const time = manualClock();
    for (let index = 0; index < 4; index++) {
      const result = await acquireLease({
        leases,
        key: 'pruned',
        owner: 'a',
        leaseMs: 1000,
        clock: time.clock,
        pruneAfterMs: 60000,
      });
      if (!result.acquired) throw new Error('expected the lease');
      await releaseLease({ leases, lease: result.lease, clock: time.clock });
      time.advance(120000);
    }
    expect((await leases.find({ key: 'pruned' }).toArray()).map((lease) => lease.generation)).toEqual([4]);
  });
});

describe('upsertIfNewer', () => {
  interface Versioned {
    _id: string;
    name?: string;
    version?: number;
    deletedAt?: Date | null;
  }
  let collection: Collection<Versioned>;
  let locks: LeaseCollection;
  let versionLocks: VersionLocks;
  const writer = { owner: 'writer', clock: () => new Date() };
  beforeAll(async () => {
    collection = db.collection<Versioned>('versioned');
    locks = db.collection<LeaseDocument>('versionedLocks');
    versionLocks = new VersionLocks(locks);
    await ensureLeaseIndexes({ leases: locks });
  });

  it('applies newer versions, ignores older and equal ones, and respects the guard', async () => {
    const write = (version: number, name: string, locks = versionLocks) =>
      upsertIfNewer({
        collection,
        locks,
        ...writer,
        id: 'u1',
        versionField: 'version',
        version,
        set: { name },
        guard: { deletedAt: null },
      });
    expect(await write(2, 'two')).toBe('inserted');
    expect(await write(1, 'one')).toBe('stale');
    expect(await write(2, 'two again')).toBe('stale');
    expect(await write(3, 'three')).toBe('updated');
    expect(await collection.findOne({ _id: 'u1' })).toEqual({ _id: 'u1', deletedAt: null, name: 'three', version: 3 });
    // Deleted by hand, past upsertIfNewer: a process that did not write the document since reads it.
    await collection.updateOne({ _id: 'u1' }, { $set: { deletedAt: new Date() } });
    expect(await write(4, 'after delete', new VersionLocks(locks))).toBe('stale');
    expect((await collection.findOne({ _id: 'u1' }))!.name).toBe('three');
  });

  it('keeps the newer of two first writes that race to create the document', async () => {
    for (let round = 0; round < 5; round++) {
      const id = `race-${round}`;
      const results = await Promise.all([
        upsertIfNewer({
          collection,
          locks: versionLocks,
          ...writer,
          id,
          versionField: 'version',
          version: 10,
          set: { name: 'older' },
        }),
        upsertIfNewer({
          collection,
          locks: versionLocks,
          ...writer,
          id,
          versionField: 'version',
          version: 20,
          set: { name: 'newer' },
        }),
      ]);
      expect(results).toContain('inserted');
      expect(await collection.findOne({ _id: id })).toMatchObject({ name: 'newer', version: 20 });
    }
  });

  it('leaves the newest of many concurrent writers of an existing document, and only the leases of the writes', async () => {
    for (let round = 0; round < 3; round++) {
      const id = `many-${round}`;
      await collection.insertOne({ _id: id, name: 'v0', version: 0, deletedAt: null });
      const versions = [3, 9, 1, 7, 12, 5, 11, 2, 8, 10, 4, 6];
      const results = await Promise.all(
        versions.map((version) =>
          upsertIfNewer({
            collection,
            locks: versionLocks,
            ...writer,
            owner: `w${version}`,
            id,
            versionField: 'version',
            version,
            set: { name: `v${version}` },
            guard: { deletedAt: null },
          }),
        ),
      );
      expect(results).toContain('updated');
      expect(await collection.findOne({ _id: id })).toMatchObject({ name: 'v12', version: 12 });
      // A lease under which nothing was written is deleted; each write's is kept, naming the version it left.
      const kept = await locks.find({ key: { $regex: `^versioned:${id}@` } }).toArray();
      expect(kept).toHaveLength(results.filter((result) => result === 'updated').length);
      expect(new Set(kept.map((lease) => lease.key)).size).toBe(kept.length);
    }
  });

  it('does not write under a first lease whose insert landed after the lease ran out, and keeps it as taken', async () => {
    await collection.insertOne({ _id: 'late', name: 'v1', version: 1, deletedAt: null });
    // The store stalls while the lease is inserted: the clock moves past the lease before the insert returns.
    const time = manualClock(new Date().toISOString());
    class StallingInserter extends BatchedInserter<LeaseDocument> {
      override async insert(document: LeaseDocument): Promise<'inserted' | 'duplicate'> {
        const result = await super.insert(document);
        time.advance(60_000);
        return result;
      }
    }
    const result = await upsertIfNewer({
      collection,
      locks: new VersionLocks(locks, { inserts: new StallingInserter(locks) }),
      owner: 'slow',
      clock: time.clock,
      leaseMs: 30_000,
      id: 'late',
      versionField: 'version',
      version: 2,
      set: { name: 'v2' },
    });
    expect(result).toBe('updated');
    expect(await collection.findOne({ _id: 'late' })).toMatchObject({ name: 'v2', version: 2 });
    const leases = await locks.find({ key: 'versioned:late@1' }).sort({ generation: 1 }).toArray();
    expect(leases.map(({ generation, releasedAt }) => ({ generation, released: releasedAt !== null }))).toEqual([
      { generation: 1, released: true },
      { generation: 2, released: false },
    ]);
  });

  it('writes a fresh change in three operations, and prunes the kept leases after their retention', async () => {
    const commands: string[] = [];
    await withMonitoredDb(
      (event) => commands.push(commandLine(event)),
      async (target) => {
        const pruned = target.collection<LeaseDocument>('prunedLocks');
        const time = { now: Date.now() };
        const options = {
          collection: target.collection<Versioned>('versioned'),
          locks: new VersionLocks(pruned, { written: new WrittenVersions(0) }),
          owner: 'writer',
          clock: () => new Date(time.now),
          id: 'three-ops',
          versionField: 'version',
          leaseRetentionMs: 60_000,
        };
        expect(await upsertIfNewer({ ...options, version: 1, set: { name: 'one' } })).toBe('inserted');
        commands.length = 0;
        expect(await upsertIfNewer({ ...options, version: 2, set: { name: 'two' } })).toBe('updated');
        expect(commands).toEqual(['find versioned', 'insert prunedLocks', 'update versioned']);
        expect(await pruned.countDocuments({})).toBe(2);
        // Past the retention (and a third of it since the first prune check), the next write prunes both.
        time.now += 61_000 + 30_000;
        expect(await upsertIfNewer({ ...options, version: 3, set: { name: 'three' } })).toBe('updated');
        await waitFor(async () => (await pruned.countDocuments({})) === 1, {
          what: 'the leases past their retention pruned',
        });
        expect(await pruned.findOne({})).toMatchObject({ key: 'versioned:three-ops@2' });
      },
    );
  });

  it('writes the next change of a document it wrote in two operations, and reads when another writer moved it on', async () => {
    const commands: string[] = [];
    await withMonitoredDb(
      (event) => commands.push(commandLine(event)),
      async (target) => {
        const shared = target.collection<LeaseDocument>('rememberedLocks');
        const replicaA = new VersionLocks(shared);
        const replicaB = new VersionLocks(shared);
        const write = (locks: VersionLocks, version: number) =>
          upsertIfNewer({
            collection: target.collection<Versioned>('versioned'),
            locks,
            ...writer,
            id: 'remembered',
            versionField: 'version',
            version,
            set: { name: `v${version}` },
            guard: { deletedAt: null },
          });
        expect(await write(replicaA, 1)).toBe('inserted');
        commands.length = 0;
        expect(await write(replicaA, 2)).toBe('updated');
        expect(commands.splice(0)).toEqual(['insert rememberedLocks', 'update versioned']);
        expect(await write(replicaB, 3)).toBe('updated');
        expect(commands.splice(0)).toEqual(['find versioned', 'insert rememberedLocks', 'update versioned']);
        // A remembers v2, but B left it (and kept @2#1): A's insert fails, and A reads v3.
        expect(await write(replicaA, 4)).toBe('updated');
        expect(commands.splice(0)).toEqual([
          'insert rememberedLocks',
          'find versioned',
          'insert rememberedLocks',
          'update versioned',
        ]);
        // A change the memory calls stale is confirmed by a read.
        expect(await write(replicaA, 3)).toBe('stale');
        expect(commands.splice(0)).toEqual(['find versioned']);
        expect(await target.collection<Versioned>('versioned').findOne({ _id: 'remembered' })).toMatchObject({
          name: 'v4',
          version: 4,
        });
      },
    );
  });

  it('leaves the newest version when two replicas that remember their writes interleave on one document', async () => {
    const replicas = [new VersionLocks(locks), new VersionLocks(locks)];
    for (let round = 0; round < 3; round++) {
      const id = `interleaved-${round}`;
      const versions = Array.from({ length: 30 }, (_, index) => index + 1).sort(() => Math.random() - 0.5);
      const results = await Promise.all(
        versions.map(async (version, index) => {
          await new Promise((resolve) => setImmediate(resolve));
          return upsertIfNewer({
            collection,
            locks: replicas[index % 2]!,
            ...writer,
            owner: `replica-${index % 2}`,
            id,
            versionField: 'version',
            version,
            set: { name: `v${version}` },
            guard: { deletedAt: null },
          });
        }),
      );
      expect(results.filter((result) => result === 'inserted')).toHaveLength(1);
      expect(await collection.findOne({ _id: id })).toMatchObject({ name: 'v30', version: 30 });
      // Then in turn: A writes, B writes a newer version, A one between the two, which A's memory calls newer.
      const inTurn = (replica: number, version: number) =>
        upsertIfNewer({
          collection,
          locks: replicas[replica]!,
          ...writer,
          id,
          versionField: 'version',
          version,
          set: { name: `v${version}` },
          guard: { deletedAt: null },
        });
      for (let version = 31; version <= 40; version += 3) {
        expect(await inTurn(0, version)).toBe('updated');
        expect(await inTurn(1, version + 2)).toBe('updated');
        expect(await inTurn(0, version + 1)).toBe('stale');
      }
      expect(await collection.findOne({ _id: id })).toMatchObject({ name: 'v42', version: 42 });
    }
  });

  it('sends only _id filters', async () => {
    const filters: unknown[] = [];
    const listener = (event: CommandStartedEvent) => {
      if (event.commandName === 'find') filters.push(event.command.filter);
      if (event.commandName === 'update')
        filters.push(...(event.command.updates as { q: unknown }[]).map((update) => update.q));
      if (event.commandName === 'delete')
        filters.push(...(event.command.deletes as { q: unknown }[]).map((del) => del.q));
    };
    await withMonitoredDb(listener, async (target) => {
      const options = {
        collection: target.collection<Versioned>('versioned'),
        // Without the memory of its writes, so that every write reads as a first write of a document does.
        locks: new VersionLocks(target.collection<LeaseDocument>('versionedLocks'), {
          written: new WrittenVersions(0),
        }),
        ...writer,
        id: 'filters',
        versionField: 'version',
      };
      expect(await upsertIfNewer({ ...options, version: 1, set: { name: 'one' }, guard: { deletedAt: null } })).toBe(
        'inserted',
      );
      expect(await upsertIfNewer({ ...options, version: 2, set: { name: 'two' }, guard: { deletedAt: null } })).toBe(
        'updated',
      );
      expect(await upsertIfNewer({ ...options, version: 1, set: { name: 'old' }, guard: { deletedAt: null } })).toBe(
        'stale',
      );
    });
    expect(filters.length).toBeGreaterThan(3);
    for (const filter of filters) expect(Object.keys(filter as object)).toEqual(['_id']);
  });
});
