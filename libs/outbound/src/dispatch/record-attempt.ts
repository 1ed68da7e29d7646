import type { DeliveryAttempt } from '../delivery';
import type { OutboundCollections } from '../collections';
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
 * status after it. One insert under a key naming the attempt: the hot path never updates a document, and logging
 * the same attempt twice (after a crash) keeps the first entry. Returns the entry that is in the log.
 */
export async function recordAttempt(collections: Pick<OutboundCollections, 'attempts'>, writers: Pick<LogWriters, 'attempts'>, message: DeliveryMessage, attempt: DeliveryAttempt | undefined, result: AttemptResult, at: Date): Promise<DeliveryLogEntry> {
  const entry: DeliveryLogEntry = {
    _id: attemptEntryId(message.deliveryId, message.round, message.roundAttempt),
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
  };
  if ((await writers.attempts.insert(entry)) === 'inserted') return entry;
  return (await collections.attempts.findOne({ _id: entry._id })) ?? entry;
}
