import { createLogger } from '@berth/logger';
import { LeaderLease, LEADER_KEY, ManualClock, readLease, type CronBuckets } from './index';
import { captureLogger, sleep, startTestNats, type TestNats } from './test-support/nats';

const silent = createLogger({ service: 'lease-test', level: 'silent' });
let nats: TestNats;

beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await nats.close();
});

function lease(buckets: CronBuckets, holder: string, options: Partial<ConstructorParameters<typeof LeaderLease>[0]> = {}): LeaderLease {
  return new LeaderLease({ buckets, holder, ttlMs: 2000, logger: silent, ...options });
}

describe('leader lease', () => {
  it('of two candidates racing for a free lease, exactly one wins (create-if-absent)', async () => {
    for (let round = 0; round < 10; round++) {
      const buckets = await nats.freshBuckets();
      const a = lease(buckets, 'a');
      const b = lease(buckets, 'b');
      const results = await Promise.all([a.maintain(), b.maintain()]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results[0] ? 'a' : 'b';
      expect((await readLease(buckets.lease))?.holder).toBe(winner);
      // The loser keeps losing while the winner renews.
      expect(await (winner === 'a' ? b : a).maintain()).toBe(false);
    }
  });

  it('renews with compare-and-set, keeping the lease past its TTL', async () => {
    const buckets = await nats.freshBuckets();
    const a = lease(buckets, 'a', { renewEveryMs: 300 });
    const b = lease(buckets, 'b');
    expect(await a.maintain()).toBe(true);
    const firstRevision = (await readLease(buckets.lease))!.revision;
    for (let i = 0; i < 10; i++) {
      await sleep(300);
      expect(await a.maintain()).toBe(true);
      expect(await b.maintain()).toBe(false);
    }
    const now = (await readLease(buckets.lease))!;
    expect(now.holder).toBe('a');
    expect(now.revision).toBeGreaterThan(firstRevision);
  });

  it('an abandoned lease expires on the server, and a follower takes over within the TTL plus its polling', async () => {
    const buckets = await nats.freshBuckets();
    const a = lease(buckets, 'a');
    const b = lease(buckets, 'b');
    const acquiredAt = performance.now();
    expect(await a.maintain()).toBe(true);
    // a is "crashed": it never renews again.
    let takeoverMs = 0;
    while (!(await b.maintain())) {
      await sleep(50);
      takeoverMs = performance.now() - acquiredAt;
      if (takeoverMs > 5000) break;
    }
    expect(b.isLeader()).toBe(true);
    expect(takeoverMs).toBeGreaterThanOrEqual(1900);
    expect(takeoverMs).toBeLessThan(2600);
    // a's own clock told it before the server did.
    expect(a.isLeader()).toBe(false);
    expect(await a.maintain()).toBe(false);
  });

  it('steps down the moment a renewal fails (the lease was taken)', async () => {
    const buckets = await nats.freshBuckets();
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const changes: Array<[boolean, string]> = [];
    const a = lease(buckets, 'a', { clock, onChange: (leading, reason) => changes.push([leading, reason]) });
    expect(await a.maintain()).toBe(true);
    await buckets.lease.put(LEADER_KEY, JSON.stringify({ holder: 'intruder', acquiredAt: '', renewedAt: '', ttlMs: 2000 }));
    clock.advance(700);
    expect(await a.maintain()).toBe(false);
    expect(changes).toEqual([
      [true, 'acquired a free lease'],
      [false, expect.stringMatching(/^renewal failed: wrong last sequence/)],
    ]);
  });

  it('a paused leader that wakes after its TTL is no longer leader before it touches the network', async () => {
    const buckets = await nats.freshBuckets();
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const { logger, lines } = captureLogger();
    const a = lease(buckets, 'a', { clock, logger });
    expect(await a.maintain()).toBe(true);
    clock.advance(1799);
    expect(a.isLeader()).toBe(true);
    clock.advance(1); // 2000 ms TTL minus the 200 ms safety margin
    expect(a.isLeader()).toBe(false);
    expect(lines.map((line) => line.msg)).toContain('Stepped down: lease expired by the local clock (no renewal in time)');
  });

  it('takes its own lease back after a late renewal if nobody else took it, but never someone else’s', async () => {
    const buckets = await nats.freshBuckets();
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const a = lease(buckets, 'a', { clock });
    expect(await a.maintain()).toBe(true);
    clock.advance(5000);
    expect(a.isLeader()).toBe(false);
    expect(await a.maintain()).toBe(true); // the server entry (real TTL 2 s) is still a's: compare-and-set renews it
    await buckets.lease.put(LEADER_KEY, JSON.stringify({ holder: 'b', acquiredAt: '', renewedAt: '', ttlMs: 2000 }));
    clock.advance(5000);
    expect(await a.maintain()).toBe(false);
  });

  it('is not fooled by a wall-clock step', async () => {
    const buckets = await nats.freshBuckets();
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const a = lease(buckets, 'a', { clock });
    expect(await a.maintain()).toBe(true);
    clock.stepWall(3_600_000);
    expect(a.isLeader()).toBe(true);
    clock.stepWall(-7_200_000);
    expect(a.isLeader()).toBe(true);
  });

  it('release deletes the lease so a follower takes over at once; a stale release deletes nothing', async () => {
    const buckets = await nats.freshBuckets();
    const a = lease(buckets, 'a');
    const b = lease(buckets, 'b');
    expect(await a.maintain()).toBe(true);
    await a.release();
    expect(a.isLeader()).toBe(false);
    expect(await readLease(buckets.lease)).toBeNull();
    expect(await b.maintain()).toBe(true);
    await a.release();
    expect((await readLease(buckets.lease))?.holder).toBe('b');
  });

  it('start/stop runs the rounds on a timer and releases on stop', async () => {
    const buckets = await nats.freshBuckets();
    const a = lease(buckets, 'a');
    const b = lease(buckets, 'b', { acquireEveryMs: 50 });
    a.start();
    await sleep(200);
    b.start();
    await sleep(2500); // past one TTL: a renewed on its own
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    const stoppedAt = performance.now();
    await a.stop();
    while (!b.isLeader() && performance.now() - stoppedAt < 2000) await sleep(10);
    expect(b.isLeader()).toBe(true);
    expect(performance.now() - stoppedAt).toBeLessThan(500);
    await b.stop();
  });

  it('refuses a TTL under 2 s (the server counts whole seconds)', async () => {
    const buckets = await nats.freshBuckets();
    expect(() => lease(buckets, 'a', { ttlMs: 1500 })).toThrow(/at least 2000/);
  });
});
