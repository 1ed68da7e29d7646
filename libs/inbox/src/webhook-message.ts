import {
  decodeWebhookBatch,
  MalformedWebhookBatchError,
  readProviderHeaders,
  UnrecoverableError,
  WEBHOOK_HEADERS,
  type ReceivedMessage,
} from '@berth/messaging';
import type { LogContext } from '@berth/logger';
import type { WebhookEvent } from './types';

/** The headers the gateway sets on what it publishes to `WEBHOOKS` (defined with the batch format in `@berth/messaging`). */
export { WEBHOOK_HEADERS };

/** One event of a batch message, with the trace context it was published under. */
export interface BatchedWebhookEvent extends WebhookEvent {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

function header(message: ReceivedMessage, name: string): string | undefined {
  const value = message.headers?.get(name);
  return value ? value : undefined;
}

/**
 * Reads the verified event a `WEBHOOKS` message carries: provider, event id and type from the `Berth-*` headers,
 * the raw JSON body as the payload. A message without provider or event id can never be processed, so it is an
 * {@link UnrecoverableError}. The type falls back to the subject (`webhooks.<provider>.<type>`), the receive time to
 * the time JetStream stored the message. The subject is kept, for a requeue to publish the event where it came, and
 * the provider headers the gateway kept (`Berth-Header-*`), for the handler.
 */
export function readWebhookMessage(message: ReceivedMessage): WebhookEvent {
  const provider = header(message, WEBHOOK_HEADERS.provider);
  const eventId = header(message, WEBHOOK_HEADERS.eventId);
  if (!provider || !eventId) {
    throw new UnrecoverableError(
      `Message on ${message.subject} has no ${WEBHOOK_HEADERS.provider} or ${WEBHOOK_HEADERS.eventId} header`,
    );
  }
  const type = header(message, WEBHOOK_HEADERS.eventType) ?? message.subject.split('.').slice(2).join('.');
  const receivedHeader = header(message, WEBHOOK_HEADERS.receivedAt);
  const parsed = receivedHeader ? new Date(receivedHeader) : undefined;
  const receivedAt = parsed && !Number.isNaN(parsed.getTime()) ? parsed : message.storedAt;
  const headers = readProviderHeaders(message.headers);
  return {
    provider,
    eventId,
    type,
    receivedAt,
    payload: message.text(),
    subject: message.subject,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
}

/** True for a batch message of the gateway's group commit (`Berth-Batch-Size`), which carries several events. */
export function isWebhookBatch(message: ReceivedMessage): boolean {
  return header(message, WEBHOOK_HEADERS.batchSize) !== undefined;
}

/** How many events a `WEBHOOKS` message carries: the consumer runner's weight, so it pulls no more than it runs. */
export function webhookMessageWeight(message: ReceivedMessage): number {
  const size = Number(header(message, WEBHOOK_HEADERS.batchSize) ?? '1');
  return Number.isInteger(size) && size > 0 ? size : 1;
}

/**
 * Reads the events of a batch message: provider and type from its headers (a batch holds one subject), event id,
 * receive time, trace context and raw body from each item, duplicates of an event id dropped.
 * @throws UnrecoverableError when the message has no provider or its data is not a batch: it can never be processed.
 */
export function readWebhookBatch(message: ReceivedMessage): BatchedWebhookEvent[] {
  const provider = header(message, WEBHOOK_HEADERS.provider);
  if (!provider)
    throw new UnrecoverableError(`Batch message on ${message.subject} has no ${WEBHOOK_HEADERS.provider} header`);
  const type = header(message, WEBHOOK_HEADERS.eventType) ?? message.subject.split('.').slice(2).join('.');
  let items;
  try {
    items = decodeWebhookBatch(message.data);
  } catch (error) {
    if (error instanceof MalformedWebhookBatchError)
      throw new UnrecoverableError(`Batch message on ${message.subject}: ${error.message}`, { cause: error });
    throw error;
  }
  const seen = new Set<string>();
  return items
    .filter((item) => !seen.has(item.eventId) && seen.add(item.eventId))
    .map((item) => {
      const receivedAt = new Date(item.receivedAt);
      return {
        provider,
        eventId: item.eventId,
        type,
        payload: Buffer.from(item.payload).toString('utf8'),
        subject: message.subject,
        receivedAt: Number.isNaN(receivedAt.getTime()) ? message.storedAt : receivedAt,
        traceparent: item.traceparent,
        tracestate: item.tracestate,
        ...(item.headers && Object.keys(item.headers).length > 0 ? { headers: { ...item.headers } } : {}),
      };
    });
}

/** Log fields for a `WEBHOOKS` message, for the transport's `contextFor`: every line of its handling names it. */
export function webhookLogContext(message: ReceivedMessage): LogContext {
  return {
    provider: header(message, WEBHOOK_HEADERS.provider),
    eventId: header(message, WEBHOOK_HEADERS.eventId),
    eventType: header(message, WEBHOOK_HEADERS.eventType),
    msgId: message.msgId,
    batchSize: header(message, WEBHOOK_HEADERS.batchSize),
  };
}
