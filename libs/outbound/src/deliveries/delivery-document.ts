import type { DeliveryOutcome } from '../delivery';

/**
 * Where a delivery stands:
 * - `pending`: queued or waiting for a retry;
 * - `delivered`: the endpoint answered 2xx;
 * - `failed`: every attempt of the schedule failed, or the endpoint answered 410 (see the last attempt);
 * - `skipped`: not attempted because the endpoint was disabled when its turn came.
 * `failed` and `skipped` deliveries are what `recover` replays.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** One attempt in the delivery log. */
export interface AttemptRecord {
  /** Counted from 1 over the delivery's life (replays continue the count). */
  attempt: number;
  outcome: DeliveryOutcome;
  statusCode: number | null;
  durationMs: number;
  startedAt: Date;
  /** First 4 KiB of the response. */
  responseBody: string | null;
  error: string | null;
  /** The address connected to, or refused. */
  address: string | null;
}

/** One event to one endpoint, in `outboundDeliveries`; `_id` is the `webhook-id`. */
export interface DeliveryDocument {
  _id: string;
  eventId: string;
  endpointId: string;
  workspaceId: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  /** The most recent attempts, oldest first (the last 20). */
  attempts: AttemptRecord[];
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  /** The round (0, or the replay number) that delivered it; a message of that round or an earlier one is not sent again. */
  deliveredRound: number | null;
  /** How many times an operator replayed it. */
  replays: number;
}

/** A delivery as the API and CLI show it. */
export interface DeliveryView {
  id: string;
  eventId: string;
  endpointId: string;
  workspaceId: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  attempts: (Omit<AttemptRecord, 'startedAt'> & { startedAt: string })[];
}

/** The public view of a delivery. */
export function toDeliveryView(delivery: DeliveryDocument): DeliveryView {
  return {
    id: delivery._id,
    eventId: delivery.eventId,
    endpointId: delivery.endpointId,
    workspaceId: delivery.workspaceId,
    eventType: delivery.eventType,
    status: delivery.status,
    attemptCount: delivery.attemptCount,
    createdAt: delivery.createdAt.toISOString(),
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    attempts: delivery.attempts.map((attempt) => ({ ...attempt, startedAt: attempt.startedAt.toISOString() })),
  };
}
