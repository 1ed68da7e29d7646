import { systemClock, type Clock } from '@berth/contract';
import type { ReceivedMessage } from '@berth/messaging';
import type { JobRecord } from '../job-record';
import { describeJobError, type DeadLetter, type DeadLetterReason } from './dead-letter';

/** Where a failed job was, for its dead letter. */
export interface FailedJobOrigin {
  queue: string;
  name: string;
  message: ReceivedMessage;
}

/** The dead letter of a job that failed for good. */
export function jobDeadLetter(
  origin: FailedJobOrigin,
  record: JobRecord,
  error: unknown,
  reason: DeadLetterReason,
  attempts: number,
  clock: Clock = systemClock,
): DeadLetter {
  return {
    jobId: record.id,
    queue: origin.queue,
    name: origin.name,
    data: record.data,
    reason,
    error: describeJobError(error),
    attempts,
    retryLimit: record.retryLimit,
    deduplicationId: record.deduplicationId,
    addedAt: record.addedAt,
    failedAt: clock.now().toISOString(),
    originalSubject: origin.message.subject,
    originalStreamSequence: origin.message.streamSequence,
    originalMessageId: origin.message.msgId,
    replayOf: record.replayOf,
  };
}

/** The dead letter of a message that could not be read as jobs: its raw body is kept, and it can't be replayed. */
export function unreadableDeadLetter(origin: FailedJobOrigin, error: unknown, clock: Clock = systemClock): DeadLetter {
  const { message } = origin;
  return {
    jobId: message.msgId ?? `seq-${message.streamSequence}`,
    queue: origin.queue,
    name: origin.name,
    data: message.text(),
    reason: 'invalid',
    error: describeJobError(error),
    attempts: message.deliveryCount,
    retryLimit: 0,
    failedAt: clock.now().toISOString(),
    originalSubject: message.subject,
    originalStreamSequence: message.streamSequence,
    originalMessageId: message.msgId,
    unreadable: true,
  };
}
