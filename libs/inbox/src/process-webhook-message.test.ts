import { ManualClock } from '@berth/contract/testing';
import { createLogger } from '@berth/logger';
import { exponentialBackoff, RetryLaterError, UnrecoverableError } from '@berth/messaging';
import { processWebhookMessage, type Inbox, type InboxHandlerEvent } from './index';
import { startTestInbox, type TestInbox } from './test-support/test-inbox';
import { fakeWebhookBatchMessage, fakeWebhookMessage } from './testing';

const logger = createLogger({ service: 'inbox-batch-test', level: 'silent' });
const retryPolicy = exponentialBackoff({ maxAttempts: 3, baseDelayMs: 5000 });
let testInbox: TestInbox;
let inbox: Inbox;
let counter = 0;

beforeAll(async () => {
  testInbox = await startTestInbox('inbox_batch_test');
  ({ inbox } = testInbox);
});
afterAll(() => testInbox?.stop());

const base = { owner: 'replica-1', leaseMs: 60000, logger, retryPolicy };
const ids = (count: number): string[] => Array.from({ length: count }, () => `evt_b${++counter}`);

describe('processWebhookMessage', () => {
  it('handles a one-event message exactly as processInboxEvent', async () => {
    const [eventId] = ids(1);
    const message = fakeWebhookMessage({ provider: 'stripe', eventId, type: 'invoice.paid', body: { id: eventId } });
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    expect(await processWebhookMessage({ ...base, inbox, message, clock, handler: async () => undefined })).toEqual([
      'processed',
    ]);
    expect(await processWebhookMessage({ ...base, inbox, message, clock, handler: async () => undefined })).toEqual([
      'already_processed',
    ]);
  });

  it('hands each event the provider headers its message carried and keeps them on its row', async () => {
    const [single, first, second] = ids(3);
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    const seen = new Map<string, Record<string, string> | undefined>();
    const handler = async (event: InboxHandlerEvent) => void seen.set(event.eventId, event.headers);
    const message = fakeWebhookMessage({
      provider: 'stripe',
      eventId: single,
      type: 'invoice.paid',
      body: { id: single },
      providerHeaders: { 'stripe-signature': 't=1,v1=aa' },
    });
    await processWebhookMessage({ ...base, inbox, message, clock, handler });
    const batch = fakeWebhookBatchMessage({
      provider: 'stripe',
      type: 'invoice.paid',
      events: [
        { eventId: first, body: { id: first }, headers: { 'stripe-signature': 't=1,v1=bb' } },
        { eventId: second, body: { id: second } },
      ],
    });
    await processWebhookMessage({ ...base, inbox, message: batch, clock, handler });
    expect(Object.fromEntries(seen)).toEqual({
      [single]: { 'stripe-signature': 't=1,v1=aa' },
      [first]: { 'stripe-signature': 't=1,v1=bb' },
      [second]: undefined,
    });
    expect((await inbox.events.findOne({ _id: `stripe:${first}` }))?.headers).toEqual({
      'stripe-signature': 't=1,v1=bb',
    });
    expect(await inbox.events.findOne({ _id: `stripe:${second}` })).not.toHaveProperty('headers');
  });

  it('applies every event of a batch once, each with its own row, duplicates inside the batch included', async () => {
    const eventIds = ids(5);
    const message = fakeWebhookBatchMessage({
      provider: 'stripe',
      type: 'customer.updated',
      events: [...eventIds, eventIds[0]].map((eventId) => ({ eventId, body: { id: eventId } })),
    });
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    const applied: string[] = [];
    const handler = async (event: InboxHandlerEvent) => void applied.push((event.body as { id: string }).id);
    expect(await processWebhookMessage({ ...base, inbox, message, clock, handler })).toEqual(
      eventIds.map(() => 'processed'),
    );
    expect(await processWebhookMessage({ ...base, inbox, message, clock, handler })).toEqual(
      eventIds.map(() => 'already_processed'),
    );
    expect(applied.sort()).toEqual([...eventIds].sort());
    const rows = await inbox.events.find({ _id: { $in: eventIds.map((id) => `stripe:${id}`) } }).toArray();
    expect(rows).toHaveLength(5);
    expect(
      rows.every(
        (row) =>
          row.type === 'customer.updated' &&
          row.processedAt !== null &&
          row.subject === 'webhooks.stripe.customer.updated',
      ),
    ).toBe(true);
  });

  it('retries the batch for a failed event with its recorded delay, and runs only that event again', async () => {
    const eventIds = ids(3);
    const events = eventIds.map((eventId) => ({ eventId, body: { id: eventId } }));
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    const runs: string[] = [];
    const handler = async (event: InboxHandlerEvent) => {
      runs.push(event.eventId);
      if (event.eventId === eventIds[1] && event.attempt === 1) throw new Error('Stripe API 500');
    };
    const first = processWebhookMessage({
      ...base,
      inbox,
      message: fakeWebhookBatchMessage({ provider: 'stripe', type: 'x', events }),
      clock,
      handler,
    });
    await expect(first).rejects.toBeInstanceOf(RetryLaterError);
    await expect(first).rejects.toMatchObject({ delayMs: 5000 });
    expect(await inbox.events.findOne({ _id: `stripe:${eventIds[1]}` })).toMatchObject({
      lastError: 'Error: Stripe API 500',
      processedAt: null,
      nextAttemptAt: new Date(clock.now().getTime() + 5000),
    });
    const again = await processWebhookMessage({
      ...base,
      inbox,
      message: fakeWebhookBatchMessage({ provider: 'stripe', type: 'x', events, deliveryCount: 2 }),
      clock,
      handler,
    });
    expect(again).toEqual(['already_processed', 'processed', 'already_processed']);
    expect(runs.filter((id) => id === eventIds[1])).toHaveLength(2);
    expect(runs.filter((id) => id !== eventIds[1]).sort()).toEqual([eventIds[0], eventIds[2]].sort());
  });

  it('sets aside an unrecoverable event without failing the rest of the batch', async () => {
    const eventIds = ids(2);
    const message = fakeWebhookBatchMessage({
      provider: 'clerk',
      type: 'user.updated',
      events: [
        { eventId: eventIds[0], body: 'not json{' },
        { eventId: eventIds[1], body: {} },
      ],
    });
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    expect(await processWebhookMessage({ ...base, inbox, message, clock, handler: async () => undefined })).toEqual([
      'abandoned',
      'processed',
    ]);
    expect(await inbox.events.findOne({ _id: `clerk:${eventIds[0]}` })).toMatchObject({
      abandonedAt: clock.now(),
      processedAt: null,
    });
  });

  it('lets the transport give up on the last attempt, with the round recorded as ended', async () => {
    const eventIds = ids(2);
    const message = fakeWebhookBatchMessage({
      provider: 'stripe',
      type: 'x',
      events: eventIds.map((eventId) => ({ eventId, body: {} })),
      deliveryCount: 3,
    });
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    const failure = new Error('still down');
    const settled = processWebhookMessage({
      ...base,
      inbox,
      message,
      clock,
      handler: async (event) => {
        if (event.eventId === eventIds[0]) throw failure;
      },
    });
    await expect(settled).rejects.toBe(failure);
    await expect(settled).rejects.not.toBeInstanceOf(RetryLaterError);
    expect(await inbox.events.findOne({ _id: `stripe:${eventIds[0]}` })).toMatchObject({
      nextAttemptAt: null,
      processedAt: null,
    });
    expect(await inbox.events.findOne({ _id: `stripe:${eventIds[1]}` })).toMatchObject({ processedAt: clock.now() });
  });

  it('gives up at once on a batch whose data cannot be read', async () => {
    const message = {
      ...fakeWebhookBatchMessage({ provider: 'stripe', type: 'x', events: [{ eventId: 'evt_bad', body: {} }] }),
      data: new TextEncoder().encode('{"eventId":1}\n'),
    };
    const clock = new ManualClock('2030-01-01T00:00:00.000Z');
    await expect(
      processWebhookMessage({ ...base, inbox, message, clock, handler: async () => undefined }),
    ).rejects.toBeInstanceOf(UnrecoverableError);
  });
});
