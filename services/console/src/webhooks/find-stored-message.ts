import { webhookSubject } from '@berth/contract';
import { DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import { decodeWebhookBatch, WEBHOOK_HEADERS } from '@berth/messaging';
import { WEBHOOKS_STREAM, type InboxEventDocument } from '@berth/inbox';

/** The JetStream message an event arrived in, as the event page shows it. */
export interface StoredMessage {
  streamSequence: number;
  subject: string;
  storedAt: Date;
  /** Every NATS header of the message (`Nats-Msg-Id`, `Berth-*`, `traceparent`…). */
  headers: Record<string, string>;
  /** Events in the message (more than 1 for the gateway's group commit). */
  batchSize: number;
  /** The W3C trace id the event was published under. */
  traceId: string | null;
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a `traceparent` value. */
export function traceIdOf(traceparent: string | undefined): string | null {
  return traceparent ? (TRACEPARENT.exec(traceparent.trim())?.[1] ?? null) : null;
}

/**
 * Finds the `WEBHOOKS` message that carried an event: an ordered consumer (ephemeral, read-only) on the event's
 * subject from a little before it was received, looking at no more than `maxMessages` messages. Null when the
 * message is past the stream's max age (7 days) or further than that from the start.
 */
export async function findStoredMessage(
  js: JetStreamClient,
  event: Pick<InboxEventDocument, 'eventId' | 'subject' | 'provider' | 'type' | 'receivedAt'>,
  options: { maxMessages?: number; timeoutMs?: number } = {},
): Promise<StoredMessage | null> {
  const subject = event.subject ?? webhookSubject(event.provider, event.type);
  const consumer = await js.consumers.get(WEBHOOKS_STREAM, {
    filter_subjects: [subject],
    deliver_policy: DeliverPolicy.StartTime,
    opt_start_time: new Date(event.receivedAt.getTime() - 5000).toISOString(),
  });
  const maxMessages = options.maxMessages ?? 500;
  try {
    const messages = await consumer.fetch({ max_messages: maxMessages, expires: options.timeoutMs ?? 2000 });
    let seen = 0;
    for await (const msg of messages) {
      seen += 1;
      const headers: Record<string, string> = {};
      for (const [key, values] of msg.headers ?? []) headers[key] = values.join(', ');
      const batchSize = Number(headers[WEBHOOK_HEADERS.batchSize] ?? '1');
      let traceparent: string | undefined;
      if (headers[WEBHOOK_HEADERS.batchSize] !== undefined) {
        const item = decodeWebhookBatch(msg.data).find((candidate) => candidate.eventId === event.eventId);
        if (item) traceparent = item.traceparent ?? headers.traceparent;
        else if (seen < maxMessages && msg.info.pending > 0) continue;
        else return null;
      } else if (headers[WEBHOOK_HEADERS.eventId] !== event.eventId) {
        if (seen < maxMessages && msg.info.pending > 0) continue;
        return null;
      } else {
        traceparent = headers.traceparent;
      }
      return {
        streamSequence: msg.seq,
        subject: msg.subject,
        storedAt: new Date(Math.floor(msg.info.timestampNanos / 1e6)),
        headers,
        batchSize,
        traceId: traceIdOf(traceparent),
      };
    }
    return null;
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}
