import { claimEvent, extendEventLease, inboxEventKey, type Inbox } from './index';
import { leaseDocumentId } from './leases/lease-types';
import { markProcessed } from './mark-processed';
import { recordAndClaimEvent } from './record-and-claim';
import { recordFailure } from './record-failure';
import { newInboxRow } from './record-received-event';
import { manualClock } from './testing';
import { startTestInbox, testWebhookEvents, type TestInbox } from './test-support/test-inbox';
import { withEventLease } from './with-event-lease';

/**
 * A first attempt's lease is its row: one insert records and claims a new event, with no lease document. These tests
 * check that everyone else still sees that lease: claims, inbox operations, a renewal, a failure and an expiry.
 */
const LEASE_MS = 60_000;
let testInbox: TestInbox;
let inbox: Inbox;

beforeAll(async () => {
  testInbox = await startTestInbox('record_and_claim_test');
  ({ inbox } = testInbox);
});
afterAll(() => testInbox?.stop());

const newEvent = testWebhookEvents('evt_rc_');

async function claimedFirst(clock: () => Date) {
  const event = newEvent();
  const claim = await recordAndClaimEvent({ inbox, event, owner: 'first', leaseMs: LEASE_MS, clock });
  if (claim.status !== 'claimed') throw new Error(`expected the first claim, got ${claim.status}`);
  return { key: inboxEventKey(event.provider, event.eventId), event, claim };
}

describe('recordAndClaimEvent', () => {
  it('records and claims a new event in one insert: the row holds the lease, no lease document is written', async () => {
    const time = manualClock();
    const { key, claim } = await claimedFirst(time.clock);
    expect(claim).toMatchObject({ attempt: 1, lease: { generation: 1, owner: 'first', heldByRow: true } });
    expect(await inbox.events.findOne({ _id: key })).toMatchObject({
      attempts: 1,
      leaseGeneration: 1,
      leaseOwner: 'first',
      leaseUntil: new Date(time.clock().getTime() + LEASE_MS),
      firstAttempt: { owner: 'first', at: time.clock() },
    });
    expect(await inbox.leases.countDocuments({ _id: leaseDocumentId(key, 1) })).toBe(0);
  });

  it('claims each of many new events once when their rows are group-committed together', async () => {
    const time = manualClock();
    expect(inbox.rowInserts).toBeDefined();
    const distinct = Array.from({ length: 20 }, () => newEvent());
    const same = newEvent();
    const claims = await Promise.all([
      ...distinct.map((event) =>
        recordAndClaimEvent({ inbox, event, owner: 'batch', leaseMs: LEASE_MS, clock: time.clock }),
      ),
      ...Array.from({ length: 10 }, (_, index) =>
        recordAndClaimEvent({ inbox, event: same, owner: `dup-${index}`, leaseMs: LEASE_MS, clock: time.clock }),
      ),
    ]);
    expect(claims.slice(0, 20).map((claim) => claim.status)).toEqual(Array(20).fill('claimed'));
    const ofSame = claims.slice(20).map((claim) => claim.status);
    expect(ofSame.filter((status) => status === 'claimed')).toHaveLength(1);
    expect(ofSame.filter((status) => status === 'busy')).toHaveLength(9);
    expect((await inbox.events.findOne({ _id: inboxEventKey(same.provider, same.eventId) }))?.attempts).toBe(1);
  });

  it('keeps every other claimer and inbox operation out while the row lease is live', async () => {
    const time = manualClock();
    const { key, event } = await claimedFirst(time.clock);
    time.advance(1000);
    expect(await recordAndClaimEvent({ inbox, event, owner: 'second', leaseMs: LEASE_MS, clock: time.clock })).toEqual({
      status: 'busy',
      holder: 'first',
      remainingMs: LEASE_MS - 1000,
    });
    const known = (await inbox.events.findOne({ _id: key }))!;
    const operation = await withEventLease(
      { inbox, key, owner: 'inbox-op:test', leaseMs: 5000, clock: time.clock, known },
      async () => 'ran',
    );
    expect(operation).toEqual({ acquired: false, holder: 'first', remainingMs: LEASE_MS - 1000 });
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        claimEvent({ inbox, key, owner: `racer-${index}`, leaseMs: LEASE_MS, clock: time.clock }),
      ),
    );
    expect(racing.map((result) => result.status)).toEqual(Array(8).fill('busy'));
  });

  it('lets one claimer take generation 2 once the row lease expired; the first can then not mark it processed', async () => {
    const time = manualClock();
    const { key, claim } = await claimedFirst(time.clock);
    time.advance(LEASE_MS + 1);
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        claimEvent({ inbox, key, owner: `racer-${index}`, leaseMs: LEASE_MS, clock: time.clock }),
      ),
    );
    const winners = racing.filter((result) => result.status === 'claimed');
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ attempt: 2, lease: { generation: 2 } });
    expect(await markProcessed({ inbox, lease: claim.lease, clock: time.clock })).toBe(false);
    expect((await inbox.events.findOne({ _id: key }))?.processedAt).toBeNull();
  });

  it('frees the event at once when the first attempt fails, without a lease document', async () => {
    const time = manualClock();
    const { key, claim } = await claimedFirst(time.clock);
    expect(
      await recordFailure({ inbox, lease: claim.lease, attempt: 1, error: new Error('Stripe 503'), clock: time.clock }),
    ).toBe(true);
    expect(await inbox.leases.countDocuments({ key })).toBe(0);
    time.advance(10);
    expect(await claimEvent({ inbox, key, owner: 'retry', leaseMs: LEASE_MS, clock: time.clock })).toMatchObject({
      status: 'claimed',
      attempt: 2,
      lease: { generation: 2, owner: 'retry' },
    });
  });

  it('writes the lease down on its first renewal, which later claims then read, and never renews it once expired', async () => {
    const time = manualClock();
    const { key, claim } = await claimedFirst(time.clock);
    time.advance(LEASE_MS / 3);
    expect(await extendEventLease({ inbox, lease: claim.lease, leaseMs: LEASE_MS, clock: time.clock })).toBe(true);
    expect(claim.lease.heldByRow).toBe(false);
    const renewedUntil = new Date(time.clock().getTime() + LEASE_MS);
    expect(await inbox.leases.findOne({ _id: leaseDocumentId(key, 1) })).toMatchObject({
      owner: 'first',
      until: renewedUntil,
      releasedAt: null,
    });
    expect((await inbox.events.findOne({ _id: key }))?.leaseUntil).toEqual(renewedUntil);
    time.advance(LEASE_MS - 1);
    expect(await claimEvent({ inbox, key, owner: 'second', leaseMs: LEASE_MS, clock: time.clock })).toMatchObject({
      status: 'busy',
      holder: 'first',
    });
    expect(await extendEventLease({ inbox, lease: claim.lease, leaseMs: LEASE_MS, clock: time.clock })).toBe(true);

    const expired = await claimedFirst(time.clock);
    time.advance(LEASE_MS);
    expect(await extendEventLease({ inbox, lease: expired.claim.lease, leaseMs: LEASE_MS, clock: time.clock })).toBe(
      false,
    );
    expect(await inbox.leases.countDocuments({ key: expired.key })).toBe(0);
  });

  it('claims through the row when the event was recorded but no attempt claimed it', async () => {
    const time = manualClock();
    const event = newEvent();
    const key = inboxEventKey(event.provider, event.eventId);
    await inbox.events.insertOne(newInboxRow(event));
    expect(
      await recordAndClaimEvent({ inbox, event, owner: 'late', leaseMs: LEASE_MS, clock: time.clock }),
    ).toMatchObject({ status: 'claimed', attempt: 1, lease: { generation: 1, owner: 'late' } });
    expect(await inbox.leases.countDocuments({ _id: leaseDocumentId(key, 1) })).toBe(1);
  });
});
