import { JOB_HEADERS, NATS_HEADERS, systemClock, type Clock } from '@berth/contract';
import { isNotFound, isWrongLastSequence, publishMessage, type Messaging } from '@berth/messaging';
import type { StoredMsg } from '@nats-io/jetstream';
import { assertQueueName, DELAYED_JOBS_STREAM_NAME, delayedJobSubject, parseJobSubject } from '../names';

/** What {@link promoteJob} did. */
export interface PromotedJob {
  queue: string;
  jobId: string;
  /** True when this call moved the job's due time to now; false when it was no longer delayed. */
  promoted: boolean;
  /** The job's name (from where it goes when due), when the delayed job was found. */
  name?: string;
  /** When the job was due before the promotion. */
  previousNotBefore?: string;
  /** One sentence for a person. */
  reason: string;
}

/** Options for {@link promoteJob}. */
export interface PromoteJobOptions {
  /** The new due time is this clock's now (`systemClock` by default). */
  clock?: Clock;
}

/** Headers of the stored schedule that are the server's or this call's to set, not copied to the new one. */
const NOT_COPIED = new Set(
  [NATS_HEADERS.msgId, NATS_HEADERS.schedule, JOB_HEADERS.notBefore, NATS_HEADERS.expectedLastSubjectSequence].map(
    (name) => name.toLowerCase(),
  ),
);

/**
 * Runs a delayed job (a delay, a retry's backoff, a rate limit's wait) now instead of at its due time. The job
 * waits in `JOBS_DELAYED` as a one-shot message schedule on `delayed-jobs.at.<queue>.<jobId>`; promoting it
 * publishes the same schedule again on that subject with `@at <now>` and the same target, body and headers, so the
 * server's own scheduler releases it to `delayed-jobs.due.<queue>.<name>` as it releases every due job, and the
 * queue's workers take it from there.
 *
 * Exactly once, whatever races it:
 * - The publish carries `Nats-Expected-Last-Subject-Sequence` with the schedule's stream sequence: when the server
 *   released the job meanwhile (which purges the subject), or another promote replaced the schedule, JetStream
 *   refuses the publish and nothing is written (`promoted: false`).
 * - A schedule replaces the one before it on its subject (the server rolls the subject up), so there is one
 *   schedule, and one release, either way; a release already under way when the promote lands purges the
 *   subject, new schedule included.
 * - `Nats-Msg-Id` `promote:<queue>:<jobId>:<sequence>`: a retry of the same promote inside the duplicate window is
 *   answered as a duplicate instead of refused.
 */
export async function promoteJob(
  messaging: Messaging,
  queue: string,
  jobId: string,
  options: PromoteJobOptions = {},
): Promise<PromotedJob> {
  assertQueueName(queue);
  if (jobId.length === 0) throw new Error('A job id is required');
  const subject = delayedJobSubject(queue, jobId);
  const stored = await lastMessage(messaging, subject);
  const schedule = stored?.header?.get(NATS_HEADERS.schedule);
  const target = stored?.header?.get(NATS_HEADERS.scheduleTarget);
  if (!stored || !schedule || !target)
    return { queue, jobId, promoted: false, reason: `job ${jobId} of ${queue} is not delayed (not in JOBS_DELAYED)` };
  const name = parseJobSubject(target)?.name;
  const previousNotBefore = stored.header?.get(JOB_HEADERS.notBefore) || undefined;
  const now = (options.clock ?? systemClock).now().toISOString();
  const headers: Record<string, string> = {};
  for (const key of stored.header?.keys() ?? []) {
    if (!NOT_COPIED.has(key.toLowerCase())) headers[key] = stored.header?.get(key) ?? '';
  }
  headers[NATS_HEADERS.schedule] = `@at ${now}`;
  headers[JOB_HEADERS.notBefore] = now;
  headers[NATS_HEADERS.expectedLastSubjectSequence] = String(stored.seq);
  try {
    await publishMessage(messaging.js, {
      subject,
      data: stored.data,
      msgId: `promote:${queue}:${jobId}:${stored.seq}`,
      expectedStream: DELAYED_JOBS_STREAM_NAME,
      headers,
    });
  } catch (error) {
    if (!isWrongLastSequence(error)) throw error;
    return {
      queue,
      jobId,
      name,
      promoted: false,
      previousNotBefore,
      reason: `job ${jobId} of ${queue} became due, or was promoted, meanwhile`,
    };
  }
  return { queue, jobId, name, promoted: true, previousNotBefore, reason: `job ${jobId} of ${queue} runs now` };
}

async function lastMessage(messaging: Messaging, subject: string): Promise<StoredMsg | null> {
  try {
    return await messaging.jsm.streams.getMessage(DELAYED_JOBS_STREAM_NAME, { last_by_subj: subject });
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
