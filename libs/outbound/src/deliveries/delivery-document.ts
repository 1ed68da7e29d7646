import type { DeliveryOutcome } from '../delivery';

/**
 * Where a delivery stands, from its latest log entry:
 * - `pending`: queued, or waiting for a retry or a replay;
 * - `delivered`: the endpoint answered 2xx;
 * - `failed`: every attempt of the schedule failed, or the endpoint answered 410 or was disabled by its failures;
 * - `skipped`: not attempted because the endpoint was disabled when its turn came.
 * `failed` and `skipped` deliveries are what `recoverEndpoint` replays.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/**
 * One event for one endpoint, in `outboundDeliveries`, written once by the fan-out and never updated; `_id` is the
 * `webhook-id`. What happened to it is in its log entries ({@link DeliveryLogEntry}).
 */
export interface DeliveryDocument {
  _id: string;
  eventId: string;
  endpointId: string;
  workspaceId: string;
  eventType: string;
  /** When the event was sent. */
  createdAt: Date;
}

/**
 * One entry of the delivery log, in `outboundAttempts`: an attempt, a skip, or a replay. Insert-only, keyed by
 * `<deliveryId>:r<round>:a<attempt>` (`…:d<n>` when made again after a crash; a replay: `<deliveryId>:r<round>:replay`).
 * An attempt costs the store one insert, which the dispatcher group-commits with those of concurrent attempts (see
 * `createLogWriters`); the delivery's status is its latest entry, so nothing is updated.
 */
export interface DeliveryLogEntry {
  _id: string;
  deliveryId: string;
  endpointId: string;
  /** 0 for the fan-out's round, n for the n-th replay. */
  round: number;
  /** The attempt of its round, from 1 (0 for a replay entry). */
  attempt: number;
  kind: 'attempt' | 'skipped' | 'replay';
  outcome: DeliveryOutcome | null;
  /** The delivery's status after this entry. */
  status: DeliveryStatus;
  statusCode: number | null;
  durationMs: number | null;
  at: Date;
  /** First 4 KiB of the response. */
  responseBody: string | null;
  error: string | null;
  /** The address connected to, or refused. */
  address: string | null;
  nextAttemptAt: Date | null;
  /** The delivery's `createdAt`, for retention. */
  createdAt: Date;
  /** Set on an attempt made again because the process holding the message died (1 for the first such). */
  redelivery?: number;
}

/** The `_id` of an attempt's log entry. */
export function attemptEntryId(deliveryId: string, round: number, attempt: number): string {
  return `${deliveryId}:r${round}:a${attempt}`;
}

/** A delivery with its status and attempts, as the API and CLI show it. */
export interface DeliveryView {
  id: string;
  eventId: string;
  endpointId: string;
  workspaceId: string;
  eventType: string;
  status: DeliveryStatus;
  /** Attempts made over every round. */
  attemptCount: number;
  /** Replays so far. */
  replays: number;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  /** Every log entry, oldest first. */
  log: {
    round: number;
    attempt: number;
    kind: DeliveryLogEntry['kind'];
    outcome: DeliveryOutcome | null;
    status: DeliveryStatus;
    statusCode: number | null;
    durationMs: number | null;
    at: string;
    responseBody: string | null;
    error: string | null;
    address: string | null;
  }[];
}

/** Orders log entries: by round, a replay entry first in its round, then by attempt, then redelivery. */
export function compareEntries(a: DeliveryLogEntry, b: DeliveryLogEntry): number {
  return (
    a.round - b.round ||
    (a.kind === 'replay' ? -1 : 0) - (b.kind === 'replay' ? -1 : 0) ||
    a.attempt - b.attempt ||
    (a.redelivery ?? 0) - (b.redelivery ?? 0)
  );
}

/** The view of a delivery from its document and its log entries (any order). */
export function toDeliveryView(delivery: DeliveryDocument, entries: readonly DeliveryLogEntry[]): DeliveryView {
  const log = [...entries].sort(compareEntries);
  const last = log.at(-1);
  const attempts = log.filter((entry) => entry.kind === 'attempt');
  const delivered = [...log].reverse().find((entry) => entry.status === 'delivered' && entry.kind === 'attempt');
  return {
    id: delivery._id,
    eventId: delivery.eventId,
    endpointId: delivery.endpointId,
    workspaceId: delivery.workspaceId,
    eventType: delivery.eventType,
    status: last?.status ?? 'pending',
    attemptCount: attempts.length,
    replays: Math.max(0, ...log.map((entry) => entry.round)),
    createdAt: delivery.createdAt.toISOString(),
    lastAttemptAt: attempts.at(-1)?.at.toISOString() ?? null,
    nextAttemptAt: last ? (last.nextAttemptAt?.toISOString() ?? null) : delivery.createdAt.toISOString(),
    deliveredAt: delivered ? new Date(delivered.at.getTime() + (delivered.durationMs ?? 0)).toISOString() : null,
    log: log.map((entry) => ({
      round: entry.round,
      attempt: entry.attempt,
      kind: entry.kind,
      outcome: entry.outcome,
      status: entry.status,
      statusCode: entry.statusCode,
      durationMs: entry.durationMs,
      at: entry.at.toISOString(),
      responseBody: entry.responseBody,
      error: entry.error,
      address: entry.address,
    })),
  };
}
