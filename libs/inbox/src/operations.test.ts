import { ManualClock } from '@berth/contract/testing';
import type { JetStreamClient } from '@nats-io/jetstream';
import { createLogger } from '@berth/logger';
import { describeError, RetryLaterError, UnrecoverableError, type RetryPolicy } from '@berth/messaging';
import {
  createWebhookAlertHook,
  deleteExpiredWebhookEvents,
  processInboxEvent,
  recordReceivedEvent,
  recoverWebhookEvents,
  redeliverWebhookEvent,
  retryAbandonedWebhookEvents,
  ScheduledRetryError,
  type Inbox,
  type InboxEventDocument,
  type WebhookEventAlert,
} from './index';
import { messageState } from './round-state';
import { raiseSetAsideAlert } from './webhook-alerts';
import { captureLogLines, fakeWebhookMessage, newInboxRow } from './testing';
import { startTestInbox, type TestInbox } from './test-support/test-inbox';

const MINUTE = 60_000;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const silent = createLogger({ service: 'inbox-ops-test', level: 'silent' });
let testInbox: TestInbox;
let inbox: Inbox;
let counter = 0;

beforeAll(async () => {
  testInbox = await startTestInbox('inbox_ops_test');
  ({ inbox } = testInbox);
});
afterAll(() => testInbox?.stop());

/** A JetStream client that records publishes, for operations whose JetStream side is not under test here. */
function recordingJs(): {
  js: JetStreamClient;
  published: { subject: string; data: string; msgID?: string; headers: Record<string, string> }[];
} {
  const published: { subject: string; data: string; msgID?: string; headers: Record<string, string> }[] = [];
  const js = {
    async publish(
      subject: string,
      data: string,
      options: { msgID?: string; headers?: { keys(): string[]; get(key: string): string } },
    ) {
      const headers: Record<string, string> = {};
      for (const key of options.headers?.keys() ?? []) headers[key] = options.headers!.get(key);
      published.push({ subject, data: String(data), msgID: options.msgID, headers });
      return { stream: 'WEBHOOKS', seq: published.length, duplicate: false };
    },
  } as unknown as JetStreamClient;
  return { js, published };
}

/** Inserts an event row with the given state (a copy of what the consumers write). */
async function row(fields: Partial<InboxEventDocument> = {}): Promise<InboxEventDocument> {
  counter += 1;
  const eventId = `evt_ops_${counter}`;
  const document: InboxEventDocument = {
    ...newInboxRow({
      provider: 'stripe',
      eventId,
      type: 'invoice.paid',
      receivedAt: new Date(T0),
      payload: `{"id":"${eventId}"}`,
      subject: 'webhooks.stripe.invoice.paid',
    }),
    ...fields,
  };
  await inbox.events.insertOne(document);
  return document;
}

async function read(id: string): Promise<InboxEventDocument> {
  return (await inbox.events.findOne({ _id: id }))!;
}

const at = (ms: number) => new ManualClock(T0 + ms);

describe('messageState', () => {
  const base = {
    receivedAt: new Date(T0),
    lastAttemptAt: null,
    leaseUntil: null,
    nextAttemptAt: null,
    roundEndedAt: null,
    requeuedAt: null,
  };
  const now = new Date(T0 + 60 * MINUTE);
  const grace = 10 * MINUTE;
  it.each([
    ['an attempt holds the lease', { leaseUntil: new Date(now.getTime() + 1) }, true, 'attempt-running'],
    [
      'a retry is due in the future',
      { lastAttemptAt: new Date(T0), nextAttemptAt: new Date(now.getTime() + 40 * MINUTE) },
      true,
      'delivery-due',
    ],
    [
      'a retry was due 9 minutes ago (inside the grace)',
      { nextAttemptAt: new Date(now.getTime() - 9 * MINUTE) },
      true,
      'delivery-due',
    ],
    [
      'a retry was due 11 minutes ago (message lost)',
      { nextAttemptAt: new Date(now.getTime() - 11 * MINUTE) },
      false,
      'overdue',
    ],
    [
      'the round ended',
      { lastAttemptAt: new Date(T0 + MINUTE), roundEndedAt: new Date(T0 + MINUTE) },
      false,
      'round-ended',
    ],
    [
      'an attempt started after the round ended (another message)',
      { roundEndedAt: new Date(T0), lastAttemptAt: new Date(now.getTime() - MINUTE) },
      true,
      'delivery-due',
    ],
    [
      'requeued 5 minutes ago',
      { roundEndedAt: null, requeuedAt: new Date(now.getTime() - 5 * MINUTE) },
      true,
      'delivery-due',
    ],
    ['never attempted, received an hour ago', {}, false, 'overdue'],
  ])('%s', (_what, fields, live, reason) => {
    expect(messageState({ ...base, ...fields }, now, grace)).toMatchObject({ live, reason });
  });
});

describe('processInboxEvent with the consumer retry policy', () => {
  const policy: RetryPolicy = { maxAttempts: 3, delayAfter: (failed) => 1000 * failed };
  const base = { owner: 'replica-1', leaseMs: 60000, logger: silent, retryPolicy: policy };

  it('records when the retry is due and naks with that very delay, in an error carrying the original', async () => {
    const message = fakeWebhookMessage({
      provider: 'stripe',
      eventId: `evt_rp${++counter}`,
      type: 'x',
      body: {},
      deliveryCount: 2,
    });
    const error = await processInboxEvent({
      ...base,
      inbox,
      message,
      clock: at(0),
      handler: async () => {
        throw new Error('Stripe 503');
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScheduledRetryError);
    expect(error).toMatchObject({ delayMs: 2000, name: 'ScheduledRetryError', message: 'Error: Stripe 503' });
    expect(describeError((error as ScheduledRetryError).original)).toBe('Error: Stripe 503');
    expect(await read(message.msgId!)).toMatchObject({
      attempts: 1,
      lastError: 'Error: Stripe 503',
      nextAttemptAt: new Date(T0 + 2000),
      roundEndedAt: null,
      subject: message.subject,
    });
  });

  it('keeps a RetryLaterError delay, and records the end of the round on the last attempt', async () => {
    const eventId = `evt_rp${++counter}`;
    const first = fakeWebhookMessage({ provider: 'stripe', eventId, type: 'x', body: {}, deliveryCount: 1 });
    const later = new RetryLaterError('rate limited', 777);
    await expect(
      processInboxEvent({
        ...base,
        inbox,
        message: first,
        clock: at(0),
        handler: async () => {
          throw later;
        },
      }),
    ).rejects.toBe(later);
    expect(await read(first.msgId!)).toMatchObject({ nextAttemptAt: new Date(T0 + 777) });
    const last = fakeWebhookMessage({ provider: 'stripe', eventId, type: 'x', body: {}, deliveryCount: 3 });
    const failure = new Error('still down');
    await expect(
      processInboxEvent({
        ...base,
        inbox,
        message: last,
        clock: at(5000),
        handler: async () => {
          throw failure;
        },
      }),
    ).rejects.toBe(failure);
    expect(await read(last.msgId!)).toMatchObject({
      attempts: 2,
      nextAttemptAt: null,
      roundEndedAt: new Date(T0 + 5000),
      abandonedAt: null,
    });
  });

  it('sets an event aside on an UnrecoverableError and owes it an alert', async () => {
    const message = fakeWebhookMessage({ provider: 'stripe', eventId: `evt_rp${++counter}`, type: 'x', body: {} });
    await expect(
      processInboxEvent({
        ...base,
        inbox,
        message,
        clock: at(0),
        handler: async () => {
          throw new UnrecoverableError('bad');
        },
      }),
    ).rejects.toBeInstanceOf(UnrecoverableError);
    expect(await read(message.msgId!)).toMatchObject({
      abandonedAt: new Date(T0),
      roundEndedAt: new Date(T0),
      setAsideCount: 1,
      alertedAt: null,
    });
  });

  it('waits for an inbox operation holding the event instead of giving the delivery back', async () => {
    const message = fakeWebhookMessage({ provider: 'stripe', eventId: `evt_rp${++counter}`, type: 'x', body: {} });
    await recordReceivedEvent({
      inbox,
      event: {
        provider: 'stripe',
        eventId: message.headers!.get('Berth-Event-Id'),
        type: 'x',
        receivedAt: new Date(T0),
        payload: '{}',
      },
    });
    // An operation holds the row's lease (as withEventLease takes it) and lets go 300 ms later.
    await inbox.events.updateOne(
      { _id: message.msgId! },
      { $set: { leaseOwner: 'inbox-op:recovery:test', leaseUntil: new Date(T0 + 60000) } },
    );
    setTimeout(
      () => void inbox.events.updateOne({ _id: message.msgId! }, { $set: { leaseOwner: null, leaseUntil: null } }),
      300,
    );
    expect(await processInboxEvent({ ...base, inbox, message, clock: at(0), handler: async () => undefined })).toBe(
      'processed',
    );
  });
});

describe('raiseSetAsideAlert', () => {
  it('raises one alert however many replicas try at once', async () => {
    const event = await row({ attempts: 33, lastError: 'Error: down', abandonedAt: new Date(T0), setAsideCount: 1 });
    const hooked: WebhookEventAlert[] = [];
    const counted: string[] = [];
    const logs = captureLogLines();
    const logger = createLogger({ service: 'alert-test', level: 'info', destination: logs.destination });
    const raised = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        raiseSetAsideAlert({
          inbox,
          event,
          owner: `replica-${index}`,
          clock: at(0),
          logger,
          alert: async (alert) => void hooked.push(alert),
          metric: { inc: ({ provider }) => void counted.push(provider) },
        }),
      ),
    );
    expect(raised.filter(Boolean)).toHaveLength(1);
    expect(hooked).toEqual([
      expect.objectContaining({
        alertId: `${event._id}#1`,
        eventId: event.eventId,
        attempts: 33,
        lastError: 'Error: down',
      }),
    ]);
    expect(hooked[0].text).toContain(`stripe:${event.eventId}`);
    expect(counted).toEqual(['stripe']);
    expect(logs.lines.filter((line) => line.level === 50)).toEqual([
      expect.objectContaining({ alert: 'webhook_event_set_aside', eventId: event.eventId, lastError: 'Error: down' }),
    ]);
    expect(await inbox.alerts.countDocuments({ eventId: event.eventId })).toBe(1);
  });
});

describe('createWebhookAlertHook', () => {
  const alert: WebhookEventAlert = {
    alertId: 'stripe:evt_1#1',
    provider: 'stripe',
    eventId: 'evt_1',
    type: 'invoice.paid',
    attempts: 33,
    lastError: 'Error: down',
    receivedAt: new Date(T0),
    abandonedAt: new Date(T0),
    text: 'Webhook event stripe:evt_1 set aside',
  };

  it('posts the text and the alert as JSON, trying again after a failed answer', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const answers = [new Response('no', { status: 500 }), new Response('ok', { status: 200 })];
    const hook = createWebhookAlertHook({
      url: 'https://hooks.example/T1',
      fetch: (async (url: string, init: RequestInit) => (calls.push({ url, init }), answers.shift()!)) as typeof fetch,
    });
    await hook(alert);
    expect(calls).toHaveLength(2);
    expect(calls[0].url).toBe('https://hooks.example/T1');
    expect(calls[0].init).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(String(calls[0].init.body))).toEqual({
      text: alert.text,
      alert: { ...alert, receivedAt: '2030-01-01T00:00:00.000Z', abandonedAt: '2030-01-01T00:00:00.000Z' },
    });
  });

  it('throws once its tries are used up', async () => {
    const hook = createWebhookAlertHook({
      url: 'https://hooks.example/T1',
      tries: 2,
      fetch: (async () => new Response('', { status: 503 })) as unknown as typeof fetch,
    });
    await expect(hook(alert)).rejects.toThrow('Alert webhook answered 503');
  });
});

describe('recoverWebhookEvents', () => {
  beforeEach(async () => {
    await inbox.events.deleteMany({});
  });

  it('requeues what has no live message, leaves the rest, and sets aside what used its attempts, with one alert', async () => {
    const now = T0 + 60 * MINUTE;
    const young = await row({ receivedAt: new Date(now - 5 * MINUTE) });
    const waiting = await row({
      attempts: 3,
      lastAttemptAt: new Date(now - 20 * MINUTE),
      nextAttemptAt: new Date(now + 20 * MINUTE),
    });
    const lost = await row({
      attempts: 3,
      lastAttemptAt: new Date(now - 40 * MINUTE),
      nextAttemptAt: new Date(now - 30 * MINUTE),
    });
    const roundOver = await row({
      attempts: 11,
      lastAttemptAt: new Date(now - 2 * MINUTE),
      roundEndedAt: new Date(now - 2 * MINUTE),
      requeueCount: 0,
      subject: undefined,
      type: 'weird type*',
    });
    const spent = await row({
      attempts: 33,
      lastError: 'Error: Stripe 503',
      lastAttemptAt: new Date(now - 2 * MINUTE),
      roundEndedAt: new Date(now - 2 * MINUTE),
      requeueCount: 2,
    });
    const unrecoverable = await row({
      attempts: 1,
      abandonedAt: new Date(now - MINUTE),
      setAsideCount: 1,
      alertedAt: null,
      lastError: 'UnrecoverableError: bad',
    });
    await row({ processedAt: new Date(now - 50 * MINUTE) });
    const { js, published } = recordingJs();
    const alerts: WebhookEventAlert[] = [];

    const result = await recoverWebhookEvents({
      inbox,
      messaging: { js },
      logger: silent,
      clock: at(60 * MINUTE),
      alert: (alert) => void alerts.push(alert),
      owner: 'test',
    });
    expect(result).toEqual({ requeued: 2, abandoned: 1, leftAlone: 1, alerted: 2, failed: 0 });
    expect(published.map((message) => [message.subject, message.msgID]).sort()).toEqual([
      ['webhooks.stripe.invoice.paid', `stripe/requeue/1:${lost.eventId}`],
      ['webhooks.stripe.weird_type_', `stripe/requeue/1:${roundOver.eventId}`],
    ]);
    const lostMessage = published.find((message) => message.headers['Berth-Event-Id'] === lost.eventId)!;
    expect(lostMessage.headers).toMatchObject({
      'Berth-Provider': 'stripe',
      'Berth-Event-Type': 'invoice.paid',
      'Berth-Received-At': '2030-01-01T00:00:00.000Z',
    });
    expect(lostMessage.data).toBe(lost.payload);
    expect(await read(lost._id)).toMatchObject({
      requeueCount: 1,
      requeuedAt: new Date(now),
      nextAttemptAt: new Date(now),
      roundEndedAt: null,
      attempts: 3,
    });
    expect(await read(spent._id)).toMatchObject({
      abandonedAt: new Date(now),
      setAsideCount: 1,
      alertedAt: new Date(now),
      attempts: 33,
    });
    expect(await read(unrecoverable._id)).toMatchObject({ alertedAt: new Date(now) });
    expect(await read(waiting._id)).toMatchObject({ requeueCount: 0 });
    expect(await read(young._id)).toMatchObject({ requeueCount: 0 });
    expect(alerts.map((alert) => alert.alertId).sort()).toEqual([`${spent._id}#1`, `${unrecoverable._id}#1`].sort());

    const again = await recoverWebhookEvents({
      inbox,
      messaging: { js },
      logger: silent,
      clock: at(61 * MINUTE),
      alert: (alert) => void alerts.push(alert),
    });
    expect(again).toEqual({ requeued: 0, abandoned: 0, leftAlone: 3, alerted: 0, failed: 0 });
    expect(published).toHaveLength(2);
  });
});

describe('retryAbandonedWebhookEvents and redeliverWebhookEvent', () => {
  beforeEach(async () => {
    await inbox.events.deleteMany({});
  });

  it('without a connection, reopens set-aside events for the next recovery run; a second call changes nothing', async () => {
    const setAside = await row({
      attempts: 33,
      abandonedAt: new Date(T0 + MINUTE),
      alertedAt: new Date(T0 + MINUTE),
      setAsideCount: 1,
      lastAttemptAt: new Date(T0 + MINUTE),
      lastError: 'Error: x',
    });
    expect(await retryAbandonedWebhookEvents({ inbox, clock: at(2 * MINUTE) })).toMatchObject({
      reopened: 1,
      requeued: 0,
    });
    expect(await read(setAside._id)).toMatchObject({
      attempts: 0,
      abandonedAt: null,
      alertedAt: null,
      reopenedAt: new Date(T0 + 2 * MINUTE),
      roundEndedAt: new Date(T0 + 2 * MINUTE),
      lastError: 'Error: x',
    });
    expect(await retryAbandonedWebhookEvents({ inbox, clock: at(3 * MINUTE) })).toMatchObject({
      reopened: 0,
      requeued: 0,
    });
    const { js, published } = recordingJs();
    expect(
      await recoverWebhookEvents({ inbox, messaging: { js }, logger: silent, clock: at(20 * MINUTE) }),
    ).toMatchObject({ requeued: 1 });
    expect(published.map((message) => message.msgID)).toEqual([`stripe/requeue/1:${setAside.eventId}`]);
  });

  it('redelivers an unprocessed or set-aside event under a new id, and refuses an unknown or processed one', async () => {
    const { js, published } = recordingJs();
    const pending = await row({ attempts: 2, requeueCount: 4 });
    const setAside = await row({ attempts: 33, abandonedAt: new Date(T0) });
    const done = await row({ processedAt: new Date(T0) });
    const redeliver = (eventId: string) =>
      redeliverWebhookEvent({ inbox, messaging: { js }, provider: 'stripe', eventId, clock: at(MINUTE) });
    expect(await redeliver(pending.eventId)).toEqual({
      status: 'redelivered',
      msgId: `stripe/requeue/5:${pending.eventId}`,
      streamSequence: 1,
      reopened: false,
    });
    expect(await redeliver(setAside.eventId)).toMatchObject({ status: 'redelivered', reopened: true });
    expect(await read(setAside._id)).toMatchObject({ attempts: 0, abandonedAt: null, requeueCount: 1 });
    expect(await redeliver(done.eventId)).toEqual({ status: 'processed', processedAt: new Date(T0) });
    expect(await redeliver('evt_nope')).toEqual({ status: 'unknown' });
    expect(published).toHaveLength(2);
  });
});

describe('deleteExpiredWebhookEvents', () => {
  it('deletes exactly the processed events past the limit, in windows, and old leases and alerts', async () => {
    await inbox.events.deleteMany({});
    const now = T0 + 40 * 24 * 60 * MINUTE;
    const day = 24 * 60 * MINUTE;
    const expired = await Promise.all(
      Array.from({ length: 7 }, (_, index) => row({ processedAt: new Date(T0 + index * MINUTE) })),
    );
    const kept = await row({ processedAt: new Date(now - 29 * day) });
    const unprocessed = await row({ receivedAt: new Date(T0 - day) });
    const setAside = await row({ abandonedAt: new Date(T0) });
    const result = await deleteExpiredWebhookEvents({ inbox, clock: at(now - T0), retentionDays: 30, batchSize: 3 });
    expect(result).toMatchObject({ deleted: 7, batches: 3, cutoff: new Date(now - 30 * day) });
    const left = (await inbox.events.find({}, { projection: { _id: 1 } }).toArray()).map((doc) => doc._id).sort();
    expect(left).toEqual([kept._id, unprocessed._id, setAside._id].sort());
    expect(expired).toHaveLength(7);
    expect(
      await deleteExpiredWebhookEvents({ inbox, clock: at(now - T0), retentionDays: 30, batchSize: 3 }),
    ).toMatchObject({ deleted: 0, batches: 0 });
  });
});
