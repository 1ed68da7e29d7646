import { ManualClock } from '@berth/contract/testing';
import { createLogger } from '@berth/logger';
import { RetryLaterError, UnrecoverableError } from '@berth/messaging';
import {
  claimEvent,
  ensureInboxIndexes,
  extendEventLease,
  inboxEventKey,
  processInboxEvent,
  recordReceivedEvent,
  type Inbox,
  type WebhookEvent,
} from './index';
import { webhookAttemptLog } from './attempt-log';
import { markProcessed } from './mark-processed';
import { recordFailure } from './record-failure';
import { fakeWebhookMessage } from './testing';
import { startTestInbox, testWebhookEvents, type TestInbox } from './test-support/test-inbox';

const logger = createLogger({ service: 'inbox-test', level: 'silent' });
let testInbox: TestInbox;
let inbox: Inbox;
/** For the ids of events made as messages (`evt_p<n>`). */
let counter = 0;

beforeAll(async () => {
  testInbox = await startTestInbox('inbox_test');
  ({ inbox } = testInbox);
});
afterAll(() => testInbox?.stop());

const newEvent = testWebhookEvents('evt_', '{"id":"x"}');

async function recorded(): Promise<{ event: WebhookEvent; key: string }> {
  const event = newEvent();
  await recordReceivedEvent({ inbox, event });
  return { event, key: inboxEventKey(event.provider, event.eventId) };
}

describe('indexes', () => {
  it('creates the provider index and the cron indexes, idempotently', async () => {
    await ensureInboxIndexes({ inbox });
    await ensureInboxIndexes({ inbox });
    const names = (await inbox.events.listIndexes().toArray()).map((index) => index.name);
    expect(names).toEqual(expect.arrayContaining(['provider_eventId', 'processedAt_receivedAt', 'abandonedAt']));
  });

  it('refuses a second row for the same provider event: its _id is the identity', async () => {
    const { key } = await recorded();
    const row = (await inbox.events.findOne({ _id: key }))!;
    await expect(inbox.events.insertOne({ ...row, payload: '{}' })).rejects.toMatchObject({ code: 11000 });
  });
});

describe('recordReceivedEvent', () => {
  it('creates one row however many times the event is delivered', async () => {
    const event = newEvent();
    expect(await recordReceivedEvent({ inbox, event })).toBe(true);
    expect(await recordReceivedEvent({ inbox, event: { ...event, payload: '{"changed":true}' } })).toBe(false);
    const rows = await inbox.events.find({ provider: 'stripe', eventId: event.eventId }).toArray();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      _id: `stripe:${event.eventId}`,
      type: 'customer.updated',
      payload: '{"id":"x"}',
      attempts: 0,
      processedAt: null,
      abandonedAt: null,
      lastError: null,
    });
  });

  it('creates one row when ten first deliveries race', async () => {
    const event = newEvent();
    const created = await Promise.all(Array.from({ length: 10 }, () => recordReceivedEvent({ inbox, event })));
    expect(created.filter(Boolean)).toHaveLength(1);
    expect(await inbox.events.countDocuments({ eventId: event.eventId })).toBe(1);
  });
});

describe('claimEvent', () => {
  it('lets exactly one of many concurrent claims win, and counts one attempt', async () => {
    for (let round = 0; round < 5; round++) {
      const { key } = await recorded();
      const clock = new ManualClock('2030-01-01T00:00:00.000Z');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          claimEvent({ inbox, key, owner: `replica-${index}`, leaseMs: 60000, clock }),
        ),
      );
      expect(results.filter((result) => result.status === 'claimed')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'busy')).toHaveLength(9);
      const row = (await inbox.events.findOne({ _id: key }))!;
      const winner = results.find((result) => result.status === 'claimed');
      expect(row).toMatchObject({ attempts: 1, leaseOwner: winner && 'lease' in winner ? winner.lease.owner : 'none' });
    }
  });

  it('records and claims a new event in one write: one winner among 20 racing first deliveries, repeated', async () => {
    for (let round = 0; round < 10; round++) {
      const event = newEvent();
      const key = inboxEventKey(event.provider, event.eventId);
      const clock = new ManualClock('2030-01-01T00:00:00.000Z');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          claimEvent({ inbox, key, event, owner: `replica-${index}`, leaseMs: 60000, clock }),
        ),
      );
      expect(results.filter((result) => result.status === 'claimed')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'busy')).toHaveLength(19);
      expect(await inbox.events.countDocuments({ eventId: event.eventId })).toBe(1);
      expect(await inbox.events.findOne({ _id: key })).toMatchObject({
        attempts: 1,
        payload: event.payload,
        type: event.type,
        processedAt: null,
        abandonedAt: null,
        requeueCount: 0,
      });
    }
  });

  it('fences every write of a holder whose lease was taken over: no renewal, no success, no failure', async () => {
    const { key } = await recorded();
    const time = new ManualClock('2030-01-01T00:00:00.000Z');
    const first = await claimEvent({ inbox, key, owner: 'a', leaseMs: 1000, clock: time });
    if (first.status !== 'claimed') throw new Error('expected a claim');
    expect(await extendEventLease({ inbox, lease: first.lease, leaseMs: 1000, clock: time })).toBe(true);
    time.advance(1001);
    // A lease that ran out is never revived, even before anyone took it over.
    expect(await extendEventLease({ inbox, lease: first.lease, leaseMs: 1000, clock: time })).toBe(false);
    const second = await claimEvent({ inbox, key, owner: 'b', leaseMs: 60000, clock: time });
    if (second.status !== 'claimed') throw new Error('expected the takeover');
    const stale = { ...first.lease, until: new Date(time.now().getTime() + 60000) };
    expect(await extendEventLease({ inbox, lease: stale, leaseMs: 1000, clock: time })).toBe(false);
    expect(await recordFailure({ inbox, lease: first.lease, attempt: 1, error: new Error('late'), clock: time })).toBe(
      false,
    );
    expect(await markProcessed({ inbox, lease: first.lease, attempt: 1, clock: time })).toBe(false);
    expect(await inbox.events.findOne({ _id: key })).toMatchObject({
      leaseOwner: 'b',
      lastError: null,
      processedAt: null,
    });
    expect(await markProcessed({ inbox, lease: second.lease, attempt: 2, clock: time })).toBe(true);
    const row = (await inbox.events.findOne({ _id: key }))!;
    expect(webhookAttemptLog(row, time.now()).map((attempt) => attempt.outcome)).toEqual(['superseded', 'succeeded']);
  });

  it('tells how each attempt ended: failed with its error, running, lease ran out, succeeded', async () => {
    const { key } = await recorded();
    const time = new ManualClock('2030-01-01T00:00:00.000Z');
    const failed = await claimEvent({ inbox, key, owner: 'a', leaseMs: 1000, clock: time });
    if (failed.status !== 'claimed') throw new Error('expected a claim');
    await recordFailure({ inbox, lease: failed.lease, attempt: 1, error: new Error('Stripe 503'), clock: time });
    const crashed = await claimEvent({ inbox, key, owner: 'b', leaseMs: 1000, clock: time });
    if (crashed.status !== 'claimed') throw new Error('expected a claim');
    let row = (await inbox.events.findOne({ _id: key }))!;
    expect(webhookAttemptLog(row, time.now())).toMatchObject([
      { generation: 1, outcome: 'failed', owner: 'a', endedAt: time.now(), error: 'Error: Stripe 503' },
      { generation: 2, outcome: 'running', owner: 'b', endedAt: null, error: null },
    ]);
    time.advance(1001);
    expect(webhookAttemptLog(row, time.now())[1].outcome).toBe('lease-ran-out');
    const third = await claimEvent({ inbox, key, owner: 'c', leaseMs: 1000, clock: time });
    if (third.status !== 'claimed') throw new Error('expected a claim');
    await markProcessed({ inbox, lease: third.lease, attempt: third.attempt, clock: time });
    row = (await inbox.events.findOne({ _id: key }))!;
    expect(webhookAttemptLog(row, time.now()).map((attempt) => [attempt.outcome, attempt.owner])).toEqual([
      ['failed', 'a'],
      ['superseded', 'unknown'],
      ['succeeded', 'c'],
    ]);
  });

  it('reports the holder and the rest of its lease while it is live', async () => {
    const { key } = await recorded();
    const time = new ManualClock('2030-01-01T00:00:00.000Z');
    expect((await claimEvent({ inbox, key, owner: 'a', leaseMs: 30000, clock: time })).status).toBe('claimed');
    time.advance(10000);
    expect(await claimEvent({ inbox, key, owner: 'b', leaseMs: 30000, clock: time })).toEqual({
      status: 'busy',
      holder: 'a',
      remainingMs: 20000,
    });
  });

  it('lets another replica reclaim an expired lease; the old owner can then not mark it processed', async () => {
    const { key } = await recorded();
    const time = new ManualClock('2030-01-01T00:00:00.000Z');
    const first = await claimEvent({ inbox, key, owner: 'a', leaseMs: 1000, clock: time });
    time.advance(1001);
    const second = await claimEvent({ inbox, key, owner: 'b', leaseMs: 1000, clock: time });
    expect(second).toMatchObject({ status: 'claimed', attempt: 2 });
    if (first.status !== 'claimed' || second.status !== 'claimed') throw new Error('expected two claims');
    expect(await markProcessed({ inbox, lease: first.lease, attempt: first.attempt, clock: time })).toBe(false);
    expect(await markProcessed({ inbox, lease: second.lease, attempt: second.attempt, clock: time })).toBe(true);
    expect((await inbox.events.findOne({ _id: key }))!.processedAt).toEqual(time.now());
  });

  it('counts attempts across failures, keeps the last error, and skips the event once processed', async () => {
    const { key } = await recorded();
    const time = new ManualClock('2030-01-01T00:00:00.000Z');
    for (const message of ['Stripe 503', 'Stripe 502']) {
      const claim = await claimEvent({ inbox, key, owner: 'a', leaseMs: 60000, clock: time });
      if (claim.status !== 'claimed') throw new Error(`expected a claim, got ${claim.status}`);
      expect(
        await recordFailure({
          inbox,
          lease: claim.lease,
          attempt: claim.attempt,
          error: new Error(message),
          clock: time,
        }),
      ).toBe(true);
      time.advance(5000);
    }
    const third = await claimEvent({ inbox, key, owner: 'b', leaseMs: 60000, clock: time });
    if (third.status !== 'claimed')
      throw new Error('expected the third attempt to be claimed at once after the release');
    expect(third.attempt).toBe(3);
    expect(await markProcessed({ inbox, lease: third.lease, attempt: third.attempt, clock: time })).toBe(true);
    const row = await inbox.events.findOne({ _id: key });
    expect(row).toMatchObject({ attempts: 3, lastError: 'Error: Stripe 502', leaseOwner: null, leaseUntil: null });
    expect(row!.attemptErrors).toEqual([
      {
        attempt: 1,
        at: new Date(time.now().getTime() - 10000),
        error: 'Error: Stripe 503',
        owner: 'a',
        startedAt: new Date(time.now().getTime() - 10000),
      },
      {
        attempt: 2,
        at: new Date(time.now().getTime() - 5000),
        error: 'Error: Stripe 502',
        owner: 'a',
        startedAt: new Date(time.now().getTime() - 5000),
      },
    ]);
    expect((await claimEvent({ inbox, key, owner: 'c', leaseMs: 60000, clock: time })).status).toBe(
      'already_processed',
    );
  });

  it('keeps the errors of the last 33 failed attempts, oldest first', async () => {
    const { key } = await recorded();
    const time = new ManualClock('2030-01-01T00:00:00.000Z');
    for (let n = 1; n <= 35; n += 1) {
      const claim = await claimEvent({ inbox, key, owner: 'a', leaseMs: 60000, clock: time });
      if (claim.status !== 'claimed') throw new Error(`expected a claim, got ${claim.status}`);
      await recordFailure({
        inbox,
        lease: claim.lease,
        attempt: claim.attempt,
        error: new Error(`failure ${n}`),
        clock: time,
      });
      time.advance(1000);
    }
    const errors = (await inbox.events.findOne({ _id: key }))!.attemptErrors!;
    expect(errors).toHaveLength(33);
    expect(errors.map((entry) => entry.attempt)).toEqual(Array.from({ length: 33 }, (_, index) => index + 3));
    expect(errors[32]).toMatchObject({ attempt: 35, error: 'Error: failure 35' });
  });

  it('does not claim a set-aside event or a missing one', async () => {
    const { key } = await recorded();
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    const claim = await claimEvent({ inbox, key, owner: 'a', leaseMs: 60000, clock });
    if (claim.status !== 'claimed') throw new Error('expected a claim');
    await recordFailure({
      inbox,
      lease: claim.lease,
      attempt: claim.attempt,
      error: new Error('bad data'),
      clock,
      abandon: true,
    });
    expect((await claimEvent({ inbox, key, owner: 'a', leaseMs: 60000, clock })).status).toBe('abandoned');
    expect((await claimEvent({ inbox, key: 'stripe:evt_nope', owner: 'a', leaseMs: 60000, clock })).status).toBe(
      'missing',
    );
  });
});

describe('processInboxEvent', () => {
  const base = { owner: 'replica-1', leaseMs: 60000, logger };

  it('runs the handler once, then skips the event on every later delivery', async () => {
    const eventId = `evt_p${++counter}`;
    const message = fakeWebhookMessage({
      provider: 'stripe',
      eventId,
      type: 'invoice.paid',
      body: { id: eventId, data: { object: { customer: 'cus_1' } } },
    });
    const seen: unknown[] = [];
    const handler = async (event: { body: unknown; attempt: number; type: string }) =>
      void seen.push({ body: event.body, attempt: event.attempt, type: event.type });
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    expect(await processInboxEvent({ ...base, inbox, message, handler, clock })).toBe('processed');
    expect(await processInboxEvent({ ...base, inbox, message, handler, clock })).toBe('already_processed');
    expect(seen).toEqual([
      { body: { id: eventId, data: { object: { customer: 'cus_1' } } }, attempt: 1, type: 'invoice.paid' },
    ]);
    expect(await inbox.events.findOne({ _id: `stripe:${eventId}` })).toMatchObject({
      attempts: 1,
      processedAt: clock.now(),
      receivedAt: new Date('2030-01-01T00:00:00.000Z'),
    });
  });

  it('records the error and rethrows it, so the transport retries', async () => {
    const eventId = `evt_p${++counter}`;
    const message = fakeWebhookMessage({ provider: 'clerk', eventId, type: 'user.updated', body: {} });
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    const failure = new Error('Mongo write failed');
    await expect(
      processInboxEvent({
        ...base,
        inbox,
        message,
        clock,
        handler: async () => {
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
    expect(await inbox.events.findOne({ _id: `clerk:${eventId}` })).toMatchObject({
      attempts: 1,
      lastError: 'Error: Mongo write failed',
      processedAt: null,
      abandonedAt: null,
      leaseOwner: null,
    });
    expect(await processInboxEvent({ ...base, inbox, message, clock, handler: async () => undefined })).toBe(
      'processed',
    );
  });

  it('sets the event aside on an UnrecoverableError, and on a body that is not JSON', async () => {
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    const bad = fakeWebhookMessage({ provider: 'stripe', eventId: `evt_p${++counter}`, type: 'x', body: 'not json{' });
    await expect(
      processInboxEvent({ ...base, inbox, message: bad, clock, handler: async () => undefined }),
    ).rejects.toBeInstanceOf(UnrecoverableError);
    const refused = fakeWebhookMessage({ provider: 'stripe', eventId: `evt_p${++counter}`, type: 'x', body: {} });
    await expect(
      processInboxEvent({
        ...base,
        inbox,
        message: refused,
        clock,
        handler: async () => {
          throw new UnrecoverableError('no such customer');
        },
      }),
    ).rejects.toBeInstanceOf(UnrecoverableError);
    for (const message of [bad, refused]) {
      const row = (await inbox.events.findOne({ _id: message.msgId! }))!;
      expect(row.abandonedAt).toEqual(clock.now());
      expect(await processInboxEvent({ ...base, inbox, message, clock, handler: async () => undefined })).toBe(
        'abandoned',
      );
    }
  });

  it('asks for a retry after the rest of the lease while another replica runs the event', async () => {
    const eventId = `evt_p${++counter}`;
    const message = fakeWebhookMessage({ provider: 'stripe', eventId, type: 'x', body: {} });
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    let release!: () => void;
    const running = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const handlerStarted = new Promise<void>((resolve) => (started = resolve));
    const first = processInboxEvent({
      ...base,
      inbox,
      message,
      clock,
      owner: 'a',
      handler: async () => {
        started();
        await running;
      },
    });
    await handlerStarted;
    const busy = processInboxEvent({ ...base, inbox, message, clock, owner: 'b', handler: async () => undefined });
    await expect(busy).rejects.toBeInstanceOf(RetryLaterError);
    await expect(busy).rejects.toMatchObject({ delayMs: 60000 });
    release();
    expect(await first).toBe('processed');
    expect(
      await processInboxEvent({ ...base, inbox, message, clock, owner: 'b', handler: async () => undefined }),
    ).toBe('already_processed');
  });

  it('gives up at once on a message without the Berth headers', async () => {
    const message = {
      ...fakeWebhookMessage({ provider: 'stripe', eventId: 'evt_nohdr', type: 'x', body: {} }),
      headers: undefined,
    };
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    await expect(
      processInboxEvent({ ...base, inbox, message, clock, handler: async () => undefined }),
    ).rejects.toBeInstanceOf(UnrecoverableError);
  });
});
