import { OUTBOUND_HEADERS, systemClock, type Clock } from '@berth/contract';
import type { JetStreamClient } from '@nats-io/jetstream';
import { publishMessage } from '@berth/messaging';
import { assertEventType, assertWorkspaceId, eventIdFor, eventSubject, OUTBOUND_EVENTS_STREAM } from '../names';
import type { OutboundEvent } from './event-document';

/** What {@link sendEvent} needs. */
export interface SendEventDependencies {
  js: JetStreamClient;
  /**
   * Time for `sentAt`; the system clock by default.
   */
  clock?: Clock;
  /** PubAck timeout in ms (the connection's default when unset). */
  timeoutMs?: number;
}

/** Options of one send. */
export interface SendOptions {
  /**
   * Names the event: sending again with the same key (a retry after a timeout, the outbox relay after a crash)
   * sends one event. Required: without it a retried `send` would reach customers twice.
   */
  idempotencyKey: string;
}

/** What {@link sendEvent} resolves with. */
export interface SentEvent {
  eventId: string;
  /** True when JetStream already held an event with this idempotency key (inside its 24 h duplicate window). */
  duplicate: boolean;
}

/**
 * Sends one event of a workspace to every endpoint of that workspace subscribed to `eventType`: stores it on
 * `OUTBOUND_EVENTS` with `Nats-Msg-Id` derived from the idempotency key, and resolves once JetStream has it
 * (fsynced). The dispatcher fans it out and delivers each copy on its own schedule.
 *
 * @throws TypeError for an invalid workspace id, event type, idempotency key, or a payload that is not JSON.
 */
export async function sendEvent(
  dependencies: SendEventDependencies,
  workspaceId: string,
  eventType: string,
  payload: unknown,
  options: SendOptions,
): Promise<SentEvent> {
  assertWorkspaceId(workspaceId);
  assertEventType(eventType);
  if (
    typeof options?.idempotencyKey !== 'string' ||
    options.idempotencyKey.length === 0 ||
    options.idempotencyKey.length > 256
  ) {
    throw new TypeError('send needs an idempotencyKey of 1-256 characters');
  }
  const sentAt = (dependencies.clock ?? systemClock).now();
  const data = JSON.stringify(payload ?? null);
  if (data === undefined) throw new TypeError('payload must be serialisable as JSON');
  const eventId = eventIdFor(workspaceId, options.idempotencyKey);
  const event: OutboundEvent = {
    eventId,
    workspaceId,
    eventType,
    body: `{"type":${JSON.stringify(eventType)},"timestamp":${JSON.stringify(sentAt.toISOString())},"data":${data}}`,
    idempotencyKey: options.idempotencyKey,
    sentAt: sentAt.toISOString(),
  };
  const ack = await publishMessage(
    dependencies.js,
    {
      subject: eventSubject(workspaceId),
      data: JSON.stringify(event),
      msgId: eventId,
      expectedStream: OUTBOUND_EVENTS_STREAM,
      headers: { [OUTBOUND_HEADERS.eventType]: eventType },
    },
    dependencies.timeoutMs,
  );
  return { eventId, duplicate: ack.duplicate };
}
