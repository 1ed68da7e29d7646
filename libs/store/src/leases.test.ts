import { ManualClock } from '@berth/contract/testing';
import type { LeaseCollection, LeaseDocument } from './lease';
import { acquireLease } from './acquire-lease';
import { releaseLease } from './release-lease';
import { renewLease } from './renew-lease';
import { startTestStore, type TestStore } from './test-support/test-store';

let store: TestStore;

beforeAll(async () => {
  store = await startTestStore('store_leases');
});
afterAll(() => store?.stop());

function leaseCollection(): LeaseCollection {
  return store.db().collection<LeaseDocument>('leases');
}

describe('leases', () => {
  it('is held by one owner until released, then taken by the next', async () => {
    const leases = leaseCollection();
    const time = new ManualClock('2026-01-01T00:00:00Z');
    const first = await acquireLease({ leases, key: 'k1', owner: 'a', leaseMs: 5000, clock: time });
    if (!first.acquired) throw new Error('expected the lease');
    expect(first.lease).toEqual({ key: 'k1', owner: 'a', until: new Date(time.now().getTime() + 5000) });
    time.advance(1000);
    expect(await acquireLease({ leases, key: 'k1', owner: 'b', leaseMs: 5000, clock: time })).toEqual({
      acquired: false,
      holder: 'a',
      remainingMs: 4000,
    });
    const renewed = await renewLease({ leases, lease: first.lease, leaseMs: 5000, clock: time });
    expect(renewed?.until).toEqual(new Date(time.now().getTime() + 5000));
    expect(await releaseLease({ leases, lease: renewed!, clock: time })).toBe(true);
    expect(await renewLease({ leases, lease: renewed!, leaseMs: 5000, clock: time })).toBeUndefined();
    const second = await acquireLease({ leases, key: 'k1', owner: 'b', leaseMs: 5000, clock: time });
    expect(second).toMatchObject({ acquired: true, lease: { owner: 'b' } });
    expect(await leases.countDocuments()).toBe(1);
    expect(await leases.findOne({ _id: 'k1' })).toMatchObject({ owner: 'b', releasedAt: null, takenAt: time.now() });
  });

  it('is taken over only once it has expired, and the old holder can then neither renew nor release it', async () => {
    const leases = leaseCollection();
    const time = new ManualClock('2026-01-01T00:00:00Z');
    const old = await acquireLease({ leases, key: 'k2', owner: 'a', leaseMs: 5000, clock: time });
    if (!old.acquired) throw new Error('expected the lease');
    time.advance(4999);
    expect(await acquireLease({ leases, key: 'k2', owner: 'b', leaseMs: 5000, clock: time })).toEqual({
      acquired: false,
      holder: 'a',
      remainingMs: 1,
    });
    time.advance(1);
    const taken = await acquireLease({ leases, key: 'k2', owner: 'b', leaseMs: 5000, clock: time });
    if (!taken.acquired) throw new Error('expected the takeover');
    expect(await renewLease({ leases, lease: old.lease, leaseMs: 5000, clock: time })).toBeUndefined();
    expect(await releaseLease({ leases, lease: old.lease, clock: time })).toBe(false);
    expect(await leases.findOne({ _id: 'k2' })).toMatchObject({ owner: 'b', until: taken.lease.until });
  });

  it('fences renew and release on the exact lease, even under the same owner name', async () => {
    const leases = leaseCollection();
    const time = new ManualClock('2026-01-01T00:00:00Z');
    const first = await acquireLease({ leases, key: 'k3', owner: 'a', leaseMs: 1000, clock: time });
    if (!first.acquired) throw new Error('expected the lease');
    time.advance(1000);
    const again = await acquireLease({ leases, key: 'k3', owner: 'a', leaseMs: 1000, clock: time });
    if (!again.acquired) throw new Error('expected the lease again');
    // The first lease, as its holder remembers it, with a clock that has not seen it run out.
    const stale = { ...first.lease, until: new Date(first.lease.until.getTime()) };
    const earlier = new ManualClock(first.lease.until.getTime() - 1);
    expect(await renewLease({ leases, lease: stale, leaseMs: 1000, clock: earlier })).toBeUndefined();
    expect(await releaseLease({ leases, lease: stale, clock: earlier })).toBe(false);
    expect(await leases.findOne({ _id: 'k3' })).toMatchObject({ until: again.lease.until, releasedAt: null });
  });

  it('gives a contested lease to exactly one of many replicas', async () => {
    const leases = leaseCollection();
    const time = new ManualClock('2026-01-01T00:00:00Z');
    for (let round = 0; round < 10; round++) {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          acquireLease({ leases, key: `race-${round % 2}`, owner: `r${index}`, leaseMs: 5000, clock: time }),
        ),
      );
      const winners = results.filter((result) => result.acquired);
      expect(winners).toHaveLength(1);
      const holder = winners[0]!.acquired ? winners[0]!.lease.owner : '';
      for (const result of results)
        if (!result.acquired) expect(result).toEqual({ acquired: false, holder, remainingMs: 5000 });
      // Rounds 0 and 1 race for a key never taken; every later round for one whose lease has just expired.
      if (round % 2 === 1) time.advance(5000);
    }
  });
});
