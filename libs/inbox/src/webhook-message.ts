import { UnrecoverableError, type ReceivedMessage } from '@berth/messaging';
import type { LogContext } from '@berth/logger';
import type { WebhookEvent } from './types';

/** The headers the gateway sets on every webhook it publishes to `WEBHOOKS`. */
export const WEBHOOK_HEADERS = {
  provider: 'Berth-Provider',
  eventId: 'Berth-Event-Id',
  eventType: 'Berth-Event-Type',
  receivedAt: 'Berth-Received-At',
} as const;

function header(message: ReceivedMessage, name: string): string | undefined {
  const value = message.headers?.get(name);
  return value ? value : undefined;
}

/**
 * Reads the verified event a `WEBHOOKS` message carries: provider, event id and type from the `Berth-*` headers,
 * the raw JSON body as the payload. A message without provider or event id can never be processed, so it is an
 * {@link UnrecoverableError}. The type falls back to the subject (`webhooks.<provider>.<type>`), the receive time to
 * the time JetStream stored the message. The subject is kept, for a requeue to publish the event where it came.
 */
export function readWebhookMessage(message: ReceivedMessage): WebhookEvent {
  const provider = header(message, WEBHOOK_HEADERS.provider);
  const eventId = header(message, WEBHOOK_HEADERS.eventId);
  if (!provider || !eventId) {
    throw new UnrecoverableError(`Message on ${message.subject} has no ${WEBHOOK_HEADERS.provider} or ${WEBHOOK_HEADERS.eventId} header`);
  }
  const type = header(message, WEBHOOK_HEADERS.eventType) ?? message.subject.split('.').slice(2).join('.');
  const receivedHeader = header(message, WEBHOOK_HEADERS.receivedAt);
  const parsed = receivedHeader ? new Date(receivedHeader) : undefined;
  const receivedAt = parsed && !Number.isNaN(parsed.getTime()) ? parsed : message.storedAt;
  return { provider, eventId, type, receivedAt, payload: message.text(), subject: message.subject };
}

/** Log fields for a `WEBHOOKS` message, for the transport's `contextFor`: every line of its handling names it. */
export function webhookLogContext(message: ReceivedMessage): LogContext {
  return {
    provider: header(message, WEBHOOK_HEADERS.provider),
    eventId: header(message, WEBHOOK_HEADERS.eventId),
    eventType: header(message, WEBHOOK_HEADERS.eventType),
    msgId: message.msgId,
  };
}
