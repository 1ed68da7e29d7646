import type { DeliveryAttempt } from '../delivery';
import type { OutboundCollections } from '../collections';
import type { AttemptRecord, DeliveryStatus } from '../deliveries/delivery-document';
import type { DeliveryMessage } from '../deliveries/delivery-message';

/** How many attempts a delivery's log keeps (the count goes on). */
export const ATTEMPTS_KEPT = 20;

/** The state a delivery is in after an attempt. */
export interface AttemptResult {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

/**
 * Writes one attempt to the delivery log and the delivery's new status, in one write by `_id` (the hot path, a
 * point write on FerretDB as on MongoDB). Upserts, so a delivery whose pending row was never written still gets one.
 */
export async function recordAttempt(collections: Pick<OutboundCollections, 'deliveries'>, message: DeliveryMessage, attempt: DeliveryAttempt, result: AttemptResult): Promise<void> {
  const record: AttemptRecord = {
    attempt: message.roundAttempt,
    outcome: attempt.outcome,
    statusCode: attempt.statusCode ?? null,
    durationMs: Math.round(attempt.durationMs),
    startedAt: attempt.startedAt,
    responseBody: attempt.responseBody ?? null,
    error: attempt.error ?? null,
    address: attempt.address ?? null,
  };
  const delivered = result.status === 'delivered';
  await collections.deliveries.updateOne(
    { _id: message.deliveryId },
    {
      $setOnInsert: { eventId: message.eventId, endpointId: message.endpointId, workspaceId: message.workspaceId, eventType: message.eventType, createdAt: new Date(message.sentAt), replays: message.round },
      $set: {
        status: result.status,
        lastAttemptAt: attempt.startedAt,
        nextAttemptAt: result.nextAttemptAt,
        ...(delivered ? { deliveredAt: new Date(attempt.startedAt.getTime() + attempt.durationMs), deliveredRound: message.round } : {}),
      },
      $inc: { attemptCount: 1 },
      $push: { attempts: { $each: [record], $slice: -ATTEMPTS_KEPT } },
    },
    { upsert: true },
  );
}

/** Marks a delivery `skipped` (its endpoint is disabled or gone), without an attempt. */
export async function recordSkipped(collections: Pick<OutboundCollections, 'deliveries'>, deliveryId: string): Promise<void> {
  await collections.deliveries.updateOne({ _id: deliveryId }, { $set: { status: 'skipped', nextAttemptAt: null } });
}
