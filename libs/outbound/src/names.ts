import { createHash, randomBytes } from 'node:crypto';

/** The stream product code sends events to, one message per event, on `outbound.events.<workspaceId>`. */
export const OUTBOUND_EVENTS_STREAM = 'OUTBOUND_EVENTS';
/** The stream of per-endpoint deliveries (`outbound.deliver.<endpointId>`) and their scheduled retries (`outbound.retry.…`). */
export const OUTBOUND_DELIVERIES_STREAM = 'OUTBOUND_DELIVERIES';
/** The durable consumer that fans events out to endpoints. */
export const FAN_OUT_CONSUMER = 'dispatcher-fan-out';
/** Core NATS subject on which endpoint changes are announced, so every dispatcher replica reloads at once. */
export const ENDPOINT_CHANGED_SUBJECT = 'outbound.control.endpoint-changed';

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

/** Subject of an event sent by product code. */
export function eventSubject(workspaceId: string): string {
  return `outbound.events.${workspaceId}`;
}

/** Subject a delivery to an endpoint waits on; its endpoint's consumer reads only this subject. */
export function deliverySubject(endpointId: string): string {
  return `outbound.deliver.${endpointId}`;
}

/** Subject of a retry waiting as a message schedule; no consumer reads it, the server moves it when due. */
export function retrySubject(endpointId: string, deliveryId: string): string {
  return `outbound.retry.${endpointId}.${deliveryId}`;
}

/** Name of the durable consumer of one endpoint's deliveries. */
export function endpointConsumerName(endpointId: string): string {
  return `endpoint-${endpointId}`;
}

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
