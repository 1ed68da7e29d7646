import type { DeliveryAttempt } from '../delivery';
import { attemptEntryId, type DeliveryLogEntry, type DeliveryStatus } from '../deliveries/delivery-document';
import type { DeliveryMessage } from '../deliveries/delivery-message';
import type { LogWriters } from './log-writers';

/** The state a delivery is in after an attempt. */
export interface AttemptResult {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

/**
 * Logs one attempt (or, without `attempt`, a skip) of the message's round and attempt number, with the delivery's
 * status after it. One insert (group-committed) under a key naming the attempt, `redelivery` telling apart the
 * attempts of a message delivered again after a crash. Writing the same entry twice keeps the first.
 */
export async function recordAttempt(
  writers: Pick<LogWriters, 'attempts'>,
  message: DeliveryMessage,
  redelivery: number,
  attempt: DeliveryAttempt | undefined,
  result: AttemptResult,
  at: Date,
): Promise<DeliveryLogEntry> {
  const entry: DeliveryLogEntry = {
    _id: `${attemptEntryId(message.deliveryId, message.round, message.roundAttempt)}${redelivery > 0 ? `:d${redelivery}` : ''}`,
    deliveryId: message.deliveryId,
    endpointId: message.endpointId,
    round: message.round,
    attempt: message.roundAttempt,
    kind: attempt ? 'attempt' : 'skipped',
    outcome: attempt?.outcome ?? null,
    status: result.status,
    statusCode: attempt?.statusCode ?? null,
    durationMs: attempt ? Math.round(attempt.durationMs) : null,
    at: attempt?.startedAt ?? at,
    responseBody: attempt?.responseBody ?? null,
    error: attempt?.error ?? null,
    address: attempt?.address ?? null,
    nextAttemptAt: result.nextAttemptAt,
    createdAt: new Date(message.sentAt),
    ...(redelivery > 0 ? { redelivery } : {}),
  };
  await writers.attempts.insert(entry);
  return entry;
}
