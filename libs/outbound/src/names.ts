import {
  deliverySubject,
  ENDPOINT_CHANGED_SUBJECT,
  endpointConsumerName,
  FAN_OUT_CONSUMER,
  outboundEventSubject,
  retrySubject,
  STREAMS,
} from '@berth/contract';
import { createHash, randomBytes } from 'node:crypto';

/** The stream product code sends events to, one message per event, on `outbound.events.<workspaceId>`. */
export const OUTBOUND_EVENTS_STREAM: string = STREAMS.outboundEvents;
/** The stream of per-endpoint deliveries (`outbound.deliver.<endpointId>`) and their scheduled retries (`outbound.retry.…`). */
export const OUTBOUND_DELIVERIES_STREAM: string = STREAMS.outboundDeliveries;
/** The durable consumer that fans events out to endpoints, and the subject endpoint changes are announced on. */
export { FAN_OUT_CONSUMER, ENDPOINT_CHANGED_SUBJECT };

const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
const EVENT_TYPE = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Throws a TypeError unless `workspaceId` can be one NATS subject token (letters, digits, `_`, `-`). */
export function assertWorkspaceId(workspaceId: string): void {
  if (!TOKEN.test(workspaceId))
    throw new TypeError(
      `workspaceId must be 1-128 characters of A-Z, a-z, 0-9, "_" and "-", got ${JSON.stringify(workspaceId)}`,
    );
}

/** Throws a TypeError unless `eventType` is 1-128 characters of letters, digits and `_ . : -` (e.g. `invoice.paid`). */
export function assertEventType(eventType: string): void {
  if (!EVENT_TYPE.test(eventType))
    throw new TypeError(
      `eventType must be 1-128 characters of A-Z, a-z, 0-9 and "_.:-", got ${JSON.stringify(eventType)}`,
    );
}

/** Subject of an event sent by product code (`outbound.events.<workspaceId>`). */
export const eventSubject = outboundEventSubject;

/** The subjects of deliveries and retries and the name of an endpoint's consumer, from the wire contract. */
export { deliverySubject, retrySubject, endpointConsumerName };

/**
 * The event id of `(workspaceId, idempotencyKey)`: the same key always names the same event, so the id serves as
 * the `Nats-Msg-Id` (JetStream drops a resend inside the duplicate window) and as the MongoDB `_id` (the fan-out
 * skips an event it already fanned out, however late the resend).
 */
export function eventIdFor(workspaceId: string, idempotencyKey: string): string {
  return `evt_${createHash('sha256').update(`${workspaceId}\u0000${idempotencyKey}`).digest('hex').slice(0, 32)}`;
}

/**
 * The `webhook-id` of one event sent to one endpoint: stable across every attempt, retry and replay, so the
 * receiver deduplicates on it.
 */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  return `msg_${eventId.replace(/^evt_/, '')}_${endpointId.replace(/^ep_/, '')}`;
}

/** A new endpoint id, `ep_` and 24 hex characters. */
export function newEndpointId(): string {
  return `ep_${randomBytes(12).toString('hex')}`;
}
