import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { compareAndSetKv, KvContentionError, KvLease, isWrongLastSequence } from './index';

let server: NatsServerHandle;
let connections: NatsConnection[];
let buckets: KV[];
let bucketCount = 0;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  connections = await Promise.all([0, 1, 2].map(() => connect({ servers: server.url })));
});
afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await server.stop();
});
beforeEach(async () => {
  bucketCount += 1;
  const name = `cas_${bucketCount}`;
  buckets = await Promise.all(
    connections.map((nc, index) =>
      index === 0 ? new Kvm(jetstream(nc)).create(name, { markerTTL: 1000 }) : Promise.resolve(undefined),
    ),
  ).then(async ([first]) => [
    first!,
    ...(await Promise.all(connections.slice(1).map((nc) => new Kvm(jetstream(nc)).open(name)))),
  ]);
});

const decode = (entry: { json<T>(): T }): number | undefined => entry.json<{ n: number }>().n;

it('applies every increment of racing writers exactly once', async () => {
  const increments = buckets.flatMap((kv) =>
    Array.from({ length: 20 }, () =>
      compareAndSetKv<{ n: number }, number>(
        kv,
        'counter',
        ({ value }) => ({ write: { put: { n: (value?.n ?? 0) + 1 } }, result: (value?.n ?? 0) + 1 }),
        { decode: (entry) => entry.json<{ n: number }>() },
      ),
    ),
  );
  const results = await Promise.all(increments);
  expect(new Set(results).size).toBe(60);
  expect(decode((await buckets[0].get('counter'))!)).toBe(60);
});

it('writes nothing when the decision leaves the entry, and deletes only at the revision read', async () => {
  await buckets[0].put('k', JSON.stringify({ n: 1 }));
  const before = (await buckets[0].get('k'))!.revision;
  const kept = await compareAndSetKv<{ n: number }, string>(buckets[0], 'k', () => ({ result: 'kept' }), {
    decode: (entry) => entry.json<{ n: number }>(),
  });
  expect(kept).toBe('kept');
  expect((await buckets[0].get('k'))!.revision).toBe(before);
  await compareAndSetKv<{ n: number }, void>(
    buckets[1],
    'k',
    ({ value }) => ({ write: value?.n === 1 ? { delete: true } : undefined, result: undefined }),
    { decode: (entry) => entry.json<{ n: number }>() },
  );
  expect((await buckets[0].get('k'))!.operation).toBe('DEL');
});

it('decides first on a known entry, reads again on a conflict, and gives the revision it wrote', async () => {
  const json = { decode: (entry: { json<T>(): T }) => entry.json<{ n: number }>() };
  await buckets[1].put('known', JSON.stringify({ n: 5 }));
  const seen: string[] = [];
  const written = await compareAndSetKv<{ n: number }, number>(
    buckets[0],
    'known',
    ({ value, known }) => {
      seen.push(`${known ? 'known' : 'read'} ${value?.n ?? 'absent'}`);
      return { write: { put: { n: (value?.n ?? 0) + 1 } }, resultOf: (revision) => revision };
    },
    { ...json, known: { value: undefined, revision: 0 } },
  );
  expect(seen).toEqual(['known absent', 'read 5']);
  expect((await buckets[0].get('known'))!.revision).toBe(written);

  // A decision may clear the entry at the revision read and decide again on what is stored then.
  const taken = await compareAndSetKv<{ n: number }, number>(
    buckets[2],
    'known',
    ({ value }) =>
      value
        ? { write: { delete: true }, reread: true }
        : { write: { put: { n: 1 }, ttl: '60s' }, resultOf: (revision) => revision },
    json,
  );
  const entry = (await buckets[0].get('known'))!;
  expect([entry.revision, decode(entry)]).toEqual([taken, 1]);
});

it('gives up with KvContentionError when the entry moves on under every round', async () => {
  let n = 0;
  const attempt = compareAndSetKv<{ n: number }, void>(
    buckets[0],
    'busy',
    async () => {
      // Another writer moves the entry between this read and its write, every round.
      await buckets[1].put('busy', JSON.stringify({ n: ++n }));
      return { write: { put: { n: -1 } }, result: undefined };
    },
    { decode: (entry) => entry.json<{ n: number }>(), rounds: 3 },
  );
  await expect(attempt).rejects.toBeInstanceOf(KvContentionError);
  expect(n).toBe(3);
});

it('leases a key to one holder, renews at its revision, and releases only its own write', async () => {
  const leases = buckets.map(
    (kv, index) =>
      new KvLease({ js: jetstream(connections[index]), kv, bucket: `cas_${bucketCount}`, key: 'leader', ttlMs: 5000 }),
  );
  const acquired = await Promise.all(leases.map((lease, index) => lease.acquire(`holder-${index}`)));
  const winners = acquired.filter((revision) => revision !== undefined);
  expect(winners).toHaveLength(1);
  const winner = acquired.findIndex((revision) => revision !== undefined);
  const loser = (winner + 1) % 3;
  const renewed = await leases[winner].renew(`holder-${winner}`, winners[0]!);
  expect(renewed).toBeGreaterThan(winners[0]!);
  const refused = await leases[loser].renew(`holder-${loser}`, winners[0]!).catch((error: unknown) => error);
  expect(isWrongLastSequence(refused)).toBe(true);
  expect(await leases[loser].release(winners[0]!)).toBe(false);
  expect((await leases[loser].read())?.string()).toBe(`holder-${winner}`);
  expect(await leases[winner].release(renewed)).toBe(true);
  expect(await leases[loser].read()).toBeNull();
  expect(await leases[loser].acquire(`holder-${loser}`)).toBeDefined();
});
