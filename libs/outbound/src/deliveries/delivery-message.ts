import { NATS_HEADERS } from '@berth/contract';
import { publishMessage, type PublishResult } from '@berth/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';
import { deliverySubject, OUTBOUND_DELIVERIES_STREAM, retrySubject } from '../names';

/** The body of a message on `outbound.deliver.<endpointId>`: everything an attempt needs but the endpoint. */
export interface DeliveryMessage {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  workspaceId: string;
  eventType: string;
  /** The exact request body. */
  body: string;
  /** When the event was sent (ISO 8601); the delivery's `createdAt`. */
  sentAt: string;
  /** 0 for the delivery queued by the fan-out, n for its n-th replay: each replay runs the retry schedule again. */
  round: number;
  /** The attempt of the current round this message stands for, from 1. */
  roundAttempt: number;
}

/** The `Nats-Msg-Id` of the message carrying attempt `roundAttempt` of round `round`; a repeated publish is dropped. */
export function deliveryMessageId(message: Pick<DeliveryMessage, 'deliveryId' | 'round' | 'roundAttempt'>): string {
  return `${message.deliveryId}:r${message.round}:a${message.roundAttempt}`;
}

/** Queues a delivery's first attempt (or a replay's) now; a repeat of the same publish is dropped by JetStream. */
export async function publishDelivery(js: JetStreamClient, message: DeliveryMessage): Promise<PublishResult> {
  return publishMessage(js, {
    subject: deliverySubject(message.endpointId),
    data: JSON.stringify(message),
    msgId: deliveryMessageId(message),
    expectedStream: OUTBOUND_DELIVERIES_STREAM,
  });
}

/**
 * Queues the next attempt of a delivery as a one-shot message schedule due at `runAt`: the server moves it to the
 * endpoint's subject then (up to ~250 ms late). Survives restarts of the dispatcher and the server. A wait of a
 * second or more is rounded up to a whole second, because the server fires a schedule with a fractional `@at` a few
 * milliseconds early (a `Retry-After: 7` must never be retried at 6.99 s).
 */
export async function scheduleDeliveryRetry(
  js: JetStreamClient,
  message: DeliveryMessage,
  at: Date,
): Promise<PublishResult> {
  const runAt = at.getTime() - Date.now() >= 1000 ? new Date(Math.ceil(at.getTime() / 1000) * 1000) : at;
  return publishMessage(js, {
    subject: retrySubject(message.endpointId, message.deliveryId),
    data: JSON.stringify(message),
    msgId: deliveryMessageId(message),
    expectedStream: OUTBOUND_DELIVERIES_STREAM,
    headers: {
      [NATS_HEADERS.schedule]: `@at ${runAt.toISOString()}`,
      [NATS_HEADERS.scheduleTarget]: deliverySubject(message.endpointId),
    },
  });
}
