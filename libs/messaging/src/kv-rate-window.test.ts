import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { waitFor } from '@berth/local-infra/testing';
import { decodeRateWindow, ServerClock, takeKvRateStart, type KvRateDecision } from './index';

let server: NatsServerHandle;
let connections: NatsConnection[];
let buckets: KV[];
let bucketCount = 0;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  connections = await Promise.all([0, 1].map(() => connect({ servers: server.url })));
});
afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await server.stop();
});
beforeEach(async () => {
  bucketCount += 1;
  const name = `rates_${bucketCount}`;
  const first = await new Kvm(jetstream(connections[0])).create(name, { history: 1 });
  buckets = [first, await new Kvm(jetstream(connections[1])).open(name)];
});

const allowed = (decisions: KvRateDecision[]): number => decisions.filter((decision) => decision.allowed).length;

describe('takeKvRateStart', () => {
  it('gives two processes whose clocks read an hour apart exactly the limit between them', async () => {
    const limit = { limit: 5, perMs: 60_000 };
    const clocks = [new ServerClock(), new ServerClock(() => performance.now() + 3_600_000)];
    const decisions = await Promise.all(
      Array.from({ length: 12 }, (_, n) => takeKvRateStart(buckets[n % 2], 'ep', limit, clocks[n % 2])),
    );
    expect(allowed(decisions)).toBe(5);
    // Later, each alone: the window is judged by the server's time, so neither finds it free.
    expect(allowed([await takeKvRateStart(buckets[1], 'ep', limit, clocks[1])])).toBe(0);
    expect(allowed([await takeKvRateStart(buckets[0], 'ep', limit, clocks[0])])).toBe(0);
  });

  it('stores a start as "this write" and reads it back as the time the server stamped on the write', async () => {
    await takeKvRateStart(buckets[0], 'ep', { limit: 3, perMs: 60_000 }, new ServerClock());
    const entry = (await buckets[0].get('ep'))!;
    expect(entry.json<{ starts: number[] }>().starts).toEqual([0]);
    expect(decodeRateWindow(entry)?.starts).toEqual([entry.created.getTime()]);
  });

  it('tells refused callers how long to wait, one interval apart, and lets the next start once the window moved', async () => {
    const limit = { limit: 2, perMs: 400 };
    const clock = new ServerClock();
    expect(allowed([await takeKvRateStart(buckets[0], 'ep', limit, clock)])).toBe(1);
    expect(allowed([await takeKvRateStart(buckets[0], 'ep', limit, clock)])).toBe(1);
    const first = await takeKvRateStart(buckets[0], 'ep', limit, clock);
    const second = await takeKvRateStart(buckets[1], 'ep', limit, new ServerClock());
    if (first.allowed || second.allowed) throw new Error('a third start within 400 ms was allowed');
    expect(first.retryAfterMs).toBeGreaterThan(0);
    expect(first.retryAfterMs).toBeLessThanOrEqual(400);
    // The second refused caller is sent one interval (400 ms / 2) after the first, give or take the time between.
    expect(second.retryAfterMs - first.retryAfterMs).toBeGreaterThan(150);
    expect(second.retryAfterMs - first.retryAfterMs).toBeLessThanOrEqual(200);
    // A refusal moves only the time handed to waiting callers: a start frees once the oldest leaves the window.
    const startedAt = performance.now();
    await waitFor(() => takeKvRateStart(buckets[0], 'ep', limit, clock), {
      what: 'a start once the window moved',
      timeoutMs: 5000,
      intervalMs: 20,
      until: (decision) => decision.allowed,
    });
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(first.retryAfterMs - 50);
  });
});
