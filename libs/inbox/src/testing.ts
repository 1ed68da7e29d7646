/**
 * Helpers for tests of the inbox and of the consumers built on it (import from `@berth/inbox/testing`). Not
 * exported from the package index: production code has no use for them.
 */
import { Writable } from 'node:stream';
import type { JetStreamClient } from '@nats-io/jetstream';
import {
  createHeaders,
  encodeWebhookBatch,
  publishMessage,
  setProviderHeaders,
  type PublishResult,
  type ReceivedMessage,
} from '@berth/messaging';
import { WEBHOOK_HEADERS } from './webhook-message';

/** The inbox row of an event not attempted yet, as the consumers insert it: for tests that insert rows directly. */
export { newInboxRow } from './record-received-event';

/** A `WEBHOOKS` message as the gateway publishes it, for tests that do not go through JetStream. */
export function fakeWebhookMessage(options: {
  provider: string;
  eventId: string;
  type: string;
  body: unknown;
  deliveryCount?: number;
  providerHeaders?: Record<string, string>;
}): ReceivedMessage {
  const headers = createHeaders();
  setProviderHeaders(headers, options.providerHeaders);
  headers.set(WEBHOOK_HEADERS.provider, options.provider);
  headers.set(WEBHOOK_HEADERS.eventId, options.eventId);
  headers.set(WEBHOOK_HEADERS.eventType, options.type);
  headers.set(WEBHOOK_HEADERS.receivedAt, '2030-01-01T00:00:00.000Z');
  const text = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return {
    subject: `webhooks.${options.provider}.${options.type}`,
    data: new TextEncoder().encode(text),
    headers,
    msgId: `${options.provider}:${options.eventId}`,
    deliveryCount: options.deliveryCount ?? 1,
    streamSequence: 1,
    storedAt: new Date('2030-01-01T00:00:01.000Z'),
    json: <T>() => JSON.parse(text) as T,
    text: () => text,
    working: () => undefined,
  };
}

/** A batch message of the gateway's group commit: several events of one provider and type in one message. */
export function fakeWebhookBatchMessage(options: {
  provider: string;
  type: string;
  events: { eventId: string; body: unknown; headers?: Record<string, string> }[];
  deliveryCount?: number;
}): ReceivedMessage {
  const headers = createHeaders();
  headers.set(WEBHOOK_HEADERS.provider, options.provider);
  headers.set(WEBHOOK_HEADERS.eventType, options.type);
  headers.set(WEBHOOK_HEADERS.receivedAt, '2030-01-01T00:00:00.000Z');
  headers.set(WEBHOOK_HEADERS.batchSize, String(options.events.length));
  const data = encodeWebhookBatch(
    options.events.map((event) => ({
      eventId: event.eventId,
      receivedAt: '2030-01-01T00:00:00.000Z',
      payload: Buffer.from(typeof event.body === 'string' ? event.body : JSON.stringify(event.body)),
      headers: event.headers,
    })),
  );
  const text = new TextDecoder().decode(data);
  return {
    subject: `webhooks.${options.provider}.${options.type}`,
    data,
    headers,
    msgId: `${options.provider}:batch:test`,
    deliveryCount: options.deliveryCount ?? 1,
    streamSequence: 1,
    storedAt: new Date('2030-01-01T00:00:01.000Z'),
    json: <T>() => JSON.parse(text) as T,
    text: () => text,
    working: () => undefined,
  };
}

/** Publishes several webhooks of one provider and type as one batch message, as the gateway's group commit does. */
export function publishTestWebhookBatch(
  js: JetStreamClient,
  batch: { provider: string; type: string; msgId: string; webhooks: { eventId: string; body: unknown }[] },
): Promise<PublishResult> {
  const receivedAt = new Date().toISOString();
  return publishMessage(js, {
    subject: `webhooks.${batch.provider}.${batch.type}`,
    data: encodeWebhookBatch(
      batch.webhooks.map((webhook) => ({
        eventId: webhook.eventId,
        receivedAt,
        payload: Buffer.from(JSON.stringify(webhook.body)),
      })),
    ),
    msgId: batch.msgId,
    headers: {
      [WEBHOOK_HEADERS.provider]: batch.provider,
      [WEBHOOK_HEADERS.eventType]: batch.type,
      [WEBHOOK_HEADERS.receivedAt]: receivedAt,
      [WEBHOOK_HEADERS.batchSize]: String(batch.webhooks.length),
    },
    expectedStream: 'WEBHOOKS',
  });
}

/** One webhook to publish as the gateway would. */
export interface TestWebhook {
  provider: string;
  eventId: string;
  type: string;
  body: unknown;
  /** Defaults to `<provider>:<eventId>`; another value gets past JetStream's duplicate window. */
  msgId?: string;
}

/** Publishes a webhook to `WEBHOOKS` the way the gateway does: subject, `Nats-Msg-Id` and `Berth-*` headers. */
export function publishTestWebhook(js: JetStreamClient, webhook: TestWebhook): Promise<PublishResult> {
  return publishMessage(js, {
    subject: `webhooks.${webhook.provider}.${webhook.type}`,
    data: JSON.stringify(webhook.body),
    msgId: webhook.msgId ?? `${webhook.provider}:${webhook.eventId}`,
    headers: {
      [WEBHOOK_HEADERS.provider]: webhook.provider,
      [WEBHOOK_HEADERS.eventId]: webhook.eventId,
      [WEBHOOK_HEADERS.eventType]: webhook.type,
      [WEBHOOK_HEADERS.receivedAt]: new Date().toISOString(),
    },
    expectedStream: 'WEBHOOKS',
  });
}

type Outcome = 'acked' | 'retried' | 'terminated';

/**
 * Collects the consumer transport's outcomes (`onOutcome`) per `Berth-Event-Id`, and lets a test wait until an event
 * reached one of them N times, instead of sleeping.
 */
export class OutcomeLog {
  private readonly seen = new Map<string, Outcome[]>();
  private readonly waiters: { eventId: string; outcome: Outcome; count: number; resolve: () => void }[] = [];

  /** Pass as the transport's `onOutcome`. */
  readonly record = (message: ReceivedMessage, outcome: Outcome): void => {
    // A batch message has no event id: it is known by its message id.
    const eventId = message.headers?.get(WEBHOOK_HEADERS.eventId) || message.msgId || '(none)';
    const list = this.seen.get(eventId) ?? [];
    list.push(outcome);
    this.seen.set(eventId, list);
    for (const waiter of [...this.waiters]) {
      if (this.count(waiter.eventId, waiter.outcome) >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  /** How many times the event's messages ended with `outcome`. */
  count(eventId: string, outcome: Outcome): number {
    return (this.seen.get(eventId) ?? []).filter((seen) => seen === outcome).length;
  }

  /** Every outcome of the event's messages, in order. */
  outcomes(eventId: string): Outcome[] {
    return [...(this.seen.get(eventId) ?? [])];
  }

  /** Resolves once the event's messages ended `count` times with `outcome`; rejects after `timeoutMs`. */
  waitFor(eventId: string, outcome: Outcome, count = 1, timeoutMs = 20000): Promise<void> {
    if (this.count(eventId, outcome) >= count) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`${eventId}: waited for ${count}× ${outcome}, saw ${JSON.stringify(this.outcomes(eventId))}`),
          ),
        timeoutMs,
      );
      this.waiters.push({ eventId, outcome, count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
}

/** A pino destination that keeps every JSON line, for assertions on what was logged. */
export function captureLogLines(): { lines: Record<string, unknown>[]; destination: Writable } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}
