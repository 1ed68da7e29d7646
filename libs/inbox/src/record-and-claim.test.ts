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
 * A new event's first attempt holds its lease document `<key>#1` and leaves the row unwritten until the attempt
 * ends. These tests check that everyone else still sees that attempt: claims, inbox operations, a renewal, a failure,
 * an expiry, a first attempt that died, and rows written without that lease.
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

function claimAs(owner: string, event: ReturnType<typeof newEvent>, clock: () => Date) {
  return recordAndClaimEvent({ inbox, event, owner, leaseMs: LEASE_MS, clock });
}

async function claimedFirst(clock: () => Date) {
  const event = newEvent();
  const claim = await claimAs('first', event, clock);
  if (claim.status !== 'claimed') throw new Error(`expected the first claim, got ${claim.status}`);
  return { key: inboxEventKey(event.provider, event.eventId), event, claim };
}

describe('recordAndClaimEvent', () => {
  it('claims a new event with one insert of its first lease and writes the row, processed, in one insert at the end', async () => {
    const time = manualClock();
    const { key, claim } = await claimedFirst(time.clock);
    const until = new Date(time.clock().getTime() + LEASE_MS);
    expect(claim).toMatchObject({ attempt: 1, lease: { generation: 1, owner: 'first', until } });
    expect(await inbox.leases.findOne({ _id: leaseDocumentId(key, 1) })).toMatchObject({ owner: 'first', until });
    expect(await inbox.events.countDocuments({ _id: key })).toBe(0);

    time.advance(5);
    expect(await markProcessed({ inbox, lease: claim.lease, clock: time.clock })).toBe(true);
    expect(await inbox.events.findOne({ _id: key })).toMatchObject({
      attempts: 1,
      leaseGeneration: 1,
      leaseOwner: null,
      leaseUntil: null,
      processedAt: time.clock(),
      firstAttempt: { owner: 'first', at: new Date(time.clock().getTime() - 5) },
    });
    expect(claim.lease.unwrittenRow).toBeUndefined();
  });

  it('claims each of many new events once when their leases and rows are group-committed together', async () => {
    const time = manualClock();
    expect(inbox.leaseInserts).toBeDefined();
    expect(inbox.rowInserts).toBeDefined();
    const distinct = Array.from({ length: 20 }, () => newEvent());
    const same = newEvent();
    const claims = await Promise.all([
      ...distinct.map((event) => claimAs('batch', event, time.clock)),
      ...Array.from({ length: 10 }, (_, index) => claimAs(`dup-${index}`, same, time.clock)),
    ]);
    expect(claims.slice(0, 20).map((claim) => claim.status)).toEqual(Array(20).fill('claimed'));
    const ofSame = claims.slice(20);
    expect(ofSame.filter((claim) => claim.status === 'claimed')).toHaveLength(1);
    expect(ofSame.filter((claim) => claim.status === 'busy')).toHaveLength(9);
    const marked = await Promise.all(
      claims.flatMap((claim) =>
        claim.status === 'claimed' ? [markProcessed({ inbox, lease: claim.lease, clock: time.clock })] : [],
      ),
    );
    expect(marked).toEqual(Array(21).fill(true));
    expect((await inbox.events.findOne({ _id: inboxEventKey(same.provider, same.eventId) }))?.attempts).toBe(1);
    expect(
      await inbox.events.countDocuments({
        processedAt: { $ne: null },
        eventId: { $in: distinct.map((e) => e.eventId) },
      }),
    ).toBe(20);
  });

  it('keeps every other claimer out while the first lease is live, though the event has no row yet', async () => {
    const time = manualClock();
    const { key, event } = await claimedFirst(time.clock);
    time.advance(1000);
    const busy = { status: 'busy', holder: 'first', remainingMs: LEASE_MS - 1000 };
    expect(await claimAs('second', event, time.clock)).toEqual(busy);
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, index) => claimAs(`racer-${index}`, event, time.clock)),
    );
    expect(racing).toEqual(Array(8).fill(busy));
    expect(await inbox.events.countDocuments({ _id: key })).toBe(0);
    expect(await inbox.leases.countDocuments({ key })).toBe(1);
  });

  it('lets one claimer record and take generation 2 once the first lease expired; the first can then not mark it processed', async () => {
    const time = manualClock();
    const { key, event, claim } = await claimedFirst(time.clock);
    time.advance(LEASE_MS + 1);
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, index) => claimAs(`racer-${index}`, event, time.clock)),
    );
    const winners = racing.filter((result) => result.status === 'claimed');
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ attempt: 2, lease: { generation: 2 } });
    expect(racing.filter((result) => result.status === 'busy')).toHaveLength(7);
    expect(await inbox.events.findOne({ _id: key })).toMatchObject({
      attempts: 2,
      leaseGeneration: 2,
      processedAt: null,
    });
    expect(await markProcessed({ inbox, lease: claim.lease, clock: time.clock })).toBe(false);
    expect((await inbox.events.findOne({ _id: key }))?.processedAt).toBeNull();
    if (winners[0].status !== 'claimed') throw new Error('unreachable');
    expect(await markProcessed({ inbox, lease: winners[0].lease, clock: time.clock })).toBe(true);
    expect((await inbox.events.findOne({ _id: key }))?.processedAt).toEqual(time.clock());
  });

  it('records a failed first attempt in its row and frees the event at once', async () => {
    const time = manualClock();
    const { key, claim } = await claimedFirst(time.clock);
    expect(
      await recordFailure({ inbox, lease: claim.lease, attempt: 1, error: new Error('Stripe 503'), clock: time.clock }),
    ).toBe(true);
    expect(await inbox.events.findOne({ _id: key })).toMatchObject({
      attempts: 1,
      lastError: 'Error: Stripe 503',
      leaseOwner: null,
      processedAt: null,
    });
    expect((await inbox.leases.findOne({ _id: leaseDocumentId(key, 1) }))?.releasedAt).toEqual(time.clock());
    time.advance(10);
    expect(await claimEvent({ inbox, key, owner: 'retry', leaseMs: LEASE_MS, clock: time.clock })).toMatchObject({
      status: 'claimed',
      attempt: 2,
      lease: { generation: 2, owner: 'retry' },
    });
  });

  it('writes the row on the first renewal, so inbox operations see the attempt; never renews a lease that ran out', async () => {
    const time = manualClock();
    const { key, claim } = await claimedFirst(time.clock);
    time.advance(LEASE_MS / 3);
    expect(await extendEventLease({ inbox, lease: claim.lease, leaseMs: LEASE_MS, clock: time.clock })).toBe(true);
    const renewedUntil = new Date(time.clock().getTime() + LEASE_MS);
    expect(await inbox.leases.findOne({ _id: leaseDocumentId(key, 1) })).toMatchObject({
      owner: 'first',
      until: renewedUntil,
      releasedAt: null,
    });
    expect(await inbox.events.findOne({ _id: key })).toMatchObject({
      attempts: 1,
      leaseOwner: 'first',
      leaseUntil: renewedUntil,
    });
    time.advance(LEASE_MS - 1);
    expect(await claimEvent({ inbox, key, owner: 'second', leaseMs: LEASE_MS, clock: time.clock })).toMatchObject({
      status: 'busy',
      holder: 'first',
    });
    const known = (await inbox.events.findOne({ _id: key }))!;
    const operation = await withEventLease(
      { inbox, key, owner: 'inbox-op:test', leaseMs: 5000, clock: time.clock, known },
      async () => 'ran',
    );
    expect(operation).toEqual({ acquired: false, holder: 'first', remainingMs: 1 });
    expect(await extendEventLease({ inbox, lease: claim.lease, leaseMs: LEASE_MS, clock: time.clock })).toBe(true);
    expect(await markProcessed({ inbox, lease: claim.lease, clock: time.clock })).toBe(true);
    expect((await inbox.events.findOne({ _id: key }))?.processedAt).toEqual(time.clock());

    const expired = await claimedFirst(time.clock);
    time.advance(LEASE_MS);
    expect(await extendEventLease({ inbox, lease: expired.claim.lease, leaseMs: LEASE_MS, clock: time.clock })).toBe(
      false,
    );
    expect(await inbox.events.countDocuments({ _id: expired.key })).toBe(0);
  });

  it('claims through the row when the event was recorded but no attempt claimed it', async () => {
    const time = manualClock();
    const event = newEvent();
    const key = inboxEventKey(event.provider, event.eventId);
    await inbox.events.insertOne(newInboxRow(event));
    expect(await claimAs('late', event, time.clock)).toMatchObject({
      status: 'claimed',
      attempt: 1,
      lease: { generation: 1, owner: 'late' },
    });
    expect(await inbox.leases.countDocuments({ _id: leaseDocumentId(key, 1) })).toBe(1);
    expect((await inbox.events.findOne({ _id: key }))?.attempts).toBe(1);
  });

  it('skips a processed event whose first lease the retention deleted', async () => {
    const time = manualClock();
    const { key, event, claim } = await claimedFirst(time.clock);
    expect(await markProcessed({ inbox, lease: claim.lease, clock: time.clock })).toBe(true);
    await inbox.leases.deleteOne({ _id: leaseDocumentId(key, 1) });
    expect(await claimAs('late', event, time.clock)).toMatchObject({ status: 'already_processed' });
    expect(await inbox.leases.countDocuments({ key })).toBe(0);
  });

  it("respects a row that holds its first lease itself (an earlier version's), then takes generation 2 after it", async () => {
    const time = manualClock();
    const event = newEvent();
    const key = inboxEventKey(event.provider, event.eventId);
    const until = new Date(time.clock().getTime() + 1000);
    await inbox.events.insertOne({
      ...newInboxRow(event),
      attempts: 1,
      leaseGeneration: 1,
      leaseOwner: 'old',
      leaseUntil: until,
    });
    expect(await claimAs('new', event, time.clock)).toEqual({ status: 'busy', holder: 'old', remainingMs: 1000 });
    expect(await inbox.leases.countDocuments({ key })).toBe(0);
    time.advance(1001);
    expect(await claimAs('new', event, time.clock)).toMatchObject({
      status: 'claimed',
      attempt: 2,
      lease: { generation: 2 },
    });
  });
});
