import type { JetStreamClient } from '@nats-io/jetstream';
import { STREAMS, webhookSubject } from '@berth/contract';
import { publishMessage, type PublishResult } from '@berth/messaging';
import type { InboxEventDocument } from './types';
import { WEBHOOK_HEADERS } from './webhook-message';

/** The stream a requeued event is published to (shard 0 when the webhooks are sharded: it holds `webhooks.>`). */
export const WEBHOOKS_STREAM: string = STREAMS.webhooks;

/**
 * The `Nats-Msg-Id` of the n-th message published again for an event: `<provider>/requeue/<n>:<eventId>`. Not the
 * gateway's `<provider>:<eventId>`, which `WEBHOOKS`' 24-hour duplicate window would drop; numbered by the row's
 * `requeueCount` (which only grows, under the event's lease), so two replicas that raced to the same requeue still
 * produce one message, and a later requeue is never taken for a duplicate.
 *
 * Unambiguous whatever the event id holds: what precedes the first `:` (`stripe/requeue/1`) contains `/`, which no
 * provider name does, so no gateway id `<provider>:<eventId>` can equal a requeue id (an event id reading
 * `evt_x:requeue:1` cannot pass for a requeue of `evt_x`), and provider and round end at the first `:`.
 */
export function requeueMessageId(event: Pick<InboxEventDocument, 'provider' | 'eventId'>, n: number): string {
  return `${event.provider}/requeue/${n}:${event.eventId}`;
}

/**
 * The subject to publish an event on: the one it arrived on, or for rows that did not keep it the one the gateway
 * would use, `webhooks.<provider>.<type tokens>` (`webhookSubject` of `@berth/contract`).
 */
export function webhookEventSubject(event: Pick<InboxEventDocument, 'provider' | 'type' | 'subject'>): string {
  return event.subject || webhookSubject(event.provider, event.type);
}

/** Options for {@link republishWebhookEvent}. */
export interface RepublishWebhookEventOptions {
  js: JetStreamClient;
  event: Pick<InboxEventDocument, 'provider' | 'eventId' | 'type' | 'subject' | 'receivedAt' | 'payload' | 'headers'>;
  /** From {@link requeueMessageId}. */
  msgId: string;
  timeoutMs?: number;
}

/**
 * Publishes a stored event to `WEBHOOKS` again, as the gateway first did: its subject, the `Berth-*` headers (with
 * the original receive time), the provider headers the row kept and the raw payload, under a new `Nats-Msg-Id`. Resolves with the PubAck.
 */
export function republishWebhookEvent(options: RepublishWebhookEventOptions): Promise<PublishResult> {
  const { event } = options;
  return publishMessage(
    options.js,
    {
      subject: webhookEventSubject(event),
      data: event.payload,
      msgId: options.msgId,
      headers: {
        [WEBHOOK_HEADERS.provider]: event.provider,
        [WEBHOOK_HEADERS.eventId]: event.eventId,
        [WEBHOOK_HEADERS.eventType]: event.type,
        [WEBHOOK_HEADERS.receivedAt]: event.receivedAt.toISOString(),
        ...providerHeaders(event.headers),
      },
      expectedStream: WEBHOOKS_STREAM,
    },
    options.timeoutMs,
  );
}

/** The row's kept provider headers as `Berth-Header-*` message headers. */
function providerHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).map(([name, value]) => [`${WEBHOOK_HEADERS.providerHeaderPrefix}${name}`, value]),
  );
}
