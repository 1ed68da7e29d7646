import { ManualClock } from '@berth/contract/testing';
import { createLogger } from '@berth/logger';
import { waitForEvent, waitForEvents } from '@berth/local-infra/testing';
import { LeaderLease, LEADER_KEY, readLease, type CronBuckets } from './index';
import { captureLogger, startTestNats, type TestNats } from './test-support/nats';

const silent = createLogger({ service: 'lease-test', level: 'silent' });
let nats: TestNats;

beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await nats.close();
});

function lease(
  buckets: CronBuckets,
  holder: string,
  options: Partial<ConstructorParameters<typeof LeaderLease>[0]> = {},
): LeaderLease {
  return new LeaderLease({ buckets, holder, ttlMs: 2000, logger: silent, ...options });
}

/** Resolves when `lease` next becomes leader. */
const becomesLeader = (lease: LeaderLease, timeoutMs?: number) =>
  waitForEvent(lease.events, 'lease:change', {
    until: ({ leading }) => leading,
    timeoutMs,
    what: `${lease.holder} to lead`,
  });

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
    // The server's TTL (2 s) runs on its own clock: ten renewals 300 ms apart outlast it.
    const checks: Array<Promise<boolean>> = [];
    a.events.on('lease:renewed', () => checks.push(b.maintain()));
    const renewed = waitForEvents(a.events, 'lease:renewed', 10);
    a.start();
    await renewed;
    expect(a.isLeader()).toBe(true);
    expect(await Promise.all(checks)).not.toContain(true);
    const now = (await readLease(buckets.lease))!;
    expect(now.holder).toBe('a');
    expect(now.revision).toBeGreaterThan(firstRevision);
    await a.stop();
  });

  it('an abandoned lease expires on the server, and a follower takes over within the TTL plus its polling', async () => {
    const buckets = await nats.freshBuckets();
    const a = lease(buckets, 'a');
    const b = lease(buckets, 'b', { acquireEveryMs: 50 });
    const acquiredAt = performance.now();
    expect(await a.maintain()).toBe(true);
    // a is "crashed": it never renews again. b polls every 50 ms until the server has removed the lease.
    const takeover = becomesLeader(b, 5000);
    b.start();
    await takeover;
    const takeoverMs = performance.now() - acquiredAt;
    expect(b.isLeader()).toBe(true);
    expect(takeoverMs).toBeGreaterThanOrEqual(1900);
    expect(takeoverMs).toBeLessThan(2600);
    // a's own clock told it before the server did.
    expect(a.isLeader()).toBe(false);
    expect(await a.maintain()).toBe(false);
    await b.stop();
  });

  it('steps down the moment a renewal fails (the lease was taken)', async () => {
    const buckets = await nats.freshBuckets();
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const changes: Array<[boolean, string]> = [];
    const a = lease(buckets, 'a', { clock });
    a.events.on('lease:change', ({ leading, reason }) => changes.push([leading, reason]));
    expect(await a.maintain()).toBe(true);
    await buckets.lease.put(
      LEADER_KEY,
      JSON.stringify({ holder: 'intruder', acquiredAt: '', renewedAt: '', ttlMs: 2000 }),
    );
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
    expect(lines.map((line) => line.msg)).toContain(
      'Stepped down: lease expired by the local clock (no renewal in time)',
    );
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

  it("start/stop runs the rounds on the clock's timer and releases on stop", async () => {
    const buckets = await nats.freshBuckets();
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const a = lease(buckets, 'a', { clock });
    const b = lease(buckets, 'b', { acquireEveryMs: 50 });
    const aLeads = becomesLeader(a);
    a.start();
    await aLeads;
    const bFollows = waitForEvent(b.events, 'lease:round');
    b.start();
    expect(await bFollows).toEqual([{ holder: 'b', leading: false }]);
    // Past one TTL on a's clock: each round its timer fires renews the lease.
    const renewals: number[] = [];
    a.events.on('lease:renewed', ({ revision }) => renewals.push(revision));
    await clock.skip(2500, () => waitForEvent(a.events, 'lease:round'));
    expect(renewals).toHaveLength(3);
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    const stoppedAt = performance.now();
    const bLeads = becomesLeader(b, 2000);
    await a.stop();
    expect(clock.pendingTimers).toBe(0);
    await bLeads;
    expect(b.isLeader()).toBe(true);
    expect(performance.now() - stoppedAt).toBeLessThan(500);
    await b.stop();
  });

  it('refuses a TTL under 2 s (the server counts whole seconds)', async () => {
    const buckets = await nats.freshBuckets();
    expect(() => lease(buckets, 'a', { ttlMs: 1500 })).toThrow(/at least 2000/);
  });
});
