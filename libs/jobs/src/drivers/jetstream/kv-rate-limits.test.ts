import { randomUUID } from 'node:crypto';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { openKvRateLimits, type RateLimits } from './kv-rate-limits';

const logger = createLogger({ service: 'kv-rate-limits-test', level: 'silent' });
let server: NatsServerHandle;
const connections: Messaging[] = [];

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
}, 60000);

afterAll(async () => {
  await Promise.all(connections.map((messaging) => messaging.close()));
  await server?.stop();
});

/** A worker process's rate limits: its own connection, its own blocks, the bucket shared. */
async function worker(bucket: string, monotonic?: () => number): Promise<RateLimits> {
  const messaging = await connectMessaging({ servers: server.url, name: 'kv-rate-limits-test', logger });
  connections.push(messaging);
  return openKvRateLimits(messaging.js, { bucket, ...(monotonic ? { monotonic } : {}) });
}

const bucket = () => `rates_${randomUUID().slice(0, 8)}`;

describe('RateLimits', () => {
  it('takes the starts of a busy key from blocks: two writes for six starts, doubling', async () => {
    const limits = await worker(bucket());
    for (let n = 0; n < 6; n++)
      expect(await limits.take('q', { key: 'a', limit: 100, perMs: 1000 })).toEqual({ allowed: true });
    // A block of 2 (one used at once, one left), then a block of 4.
    expect(limits.commits.stats.changes).toBe(2);
    expect(await limits.list('q')).toEqual([{ queue: 'q', key: 'a', startsInWindow: 6 }]);
  });

  it('asks again once a block’s hold is over, for as many starts as were used of it', async () => {
    let now = 0;
    const limits = await worker(bucket(), () => now);
    await limits.take('q', { key: 'a', limit: 100, perMs: 60_000 });
    now += 1001; // past the hold (1 s at most): the block's last start may not be used any more
    await limits.take('q', { key: 'a', limit: 100, perMs: 60_000 });
    expect(limits.commits.stats.changes).toBe(2);
    // One start of the first block of 2 was used: the second asked for one, so the next take asks again (for 2).
    await limits.take('q', { key: 'a', limit: 100, perMs: 60_000 });
    expect(limits.commits.stats.changes).toBe(3);
    // Reserved starts count, used or not: 2 + 1 + 2.
    expect((await limits.list('q'))[0].startsInWindow).toBe(5);
  });

  it('a prepared block serves the take that follows without a write', async () => {
    const limits = await worker(bucket());
    limits.prepare('q', { key: 'a', limit: 100, perMs: 1000 });
    expect(await limits.take('q', { key: 'a', limit: 100, perMs: 1000 })).toEqual({ allowed: true });
    expect(await limits.take('q', { key: 'a', limit: 100, perMs: 1000 })).toEqual({ allowed: true });
    expect(limits.commits.stats.changes).toBe(1);
  });

  it('stops preparing a key whose prepared block ran out unused, until a block of it is used up in time', async () => {
    let now = 0;
    const limits = await worker(bucket(), () => now);
    const limit = { key: 'slow', limit: 100, perMs: 60_000 };
    limits.prepare('q', limit);
    await limits.commits.drain();
    now += 1001; // its job waited longer than the hold for a slot
    limits.prepare('q', limit);
    await limits.commits.drain();
    expect(limits.commits.stats.changes).toBe(1);
    // Takes go on one write each until a block is used up in time: a single start, then a block of 2 used up.
    await limits.take('q', limit);
    await limits.take('q', limit);
    await limits.take('q', limit);
    expect(limits.commits.stats.changes).toBe(3);
    limits.prepare('q', limit);
    await limits.commits.drain();
    expect(limits.commits.stats.changes).toBe(4);
  });

  it('two workers racing for one window get `limit` starts between them, and the others come back later', async () => {
    const name = bucket();
    const [first, second] = await Promise.all([worker(name), worker(name)]);
    const limit = { key: 'hot', limit: 10, perMs: 60_000 };
    const before = Date.now();
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, n) => (n % 2 === 0 ? first : second).take('q', limit)),
    );
    const allowed = decisions.filter((decision) => decision.allowed);
    expect(allowed).toHaveLength(10);
    const retries = decisions.flatMap((decision) => (decision.allowed ? [] : [decision.retryAt]));
    expect(retries).toHaveLength(30);
    expect(Math.min(...retries)).toBeGreaterThanOrEqual(before + 60_000 - 1000);
    // Spread one interval (6 s) apart, each to its own time.
    expect(new Set(retries).size).toBe(30);
  });
});
