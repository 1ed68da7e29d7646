import type { Messaging } from '@berth/messaging';
import type { JetStreamJobProducer } from '../drivers/jetstream/jetstream-job-producer';
import { DEAD_LETTERS_STREAM_NAME, parseJobSubject } from '../names';
import type { DeadLetter } from './dead-letter';
import { listDeadLetters } from './list-dead-letters';

/** What replaying one dead letter did. */
export interface ReplayResult {
  /** The dead letter's id (its sequence in `DEAD_LETTERS`). */
  id: number;
  queue: string;
  name: string;
  /** The job that failed. */
  replayOf: string;
  /** The new job's id (or, when deduplicated, the live job's). */
  jobId: string;
  /** True when a job with the same deduplication id was already queued: nothing new was queued. */
  deduplicated: boolean;
}

/**
 * Queues a dead letter's job again, with its data, retry limit and deduplication id, and full attempts; then
 * removes the dead letter. The new job id is derived from the dead letter (`<jobId>-replay-<id>`), so a replay
 * interrupted between the two steps and run again queues the job once (inside the `JOBS` duplicate window).
 */
export async function replayDeadLetter(
  messaging: Messaging,
  producer: JetStreamJobProducer,
  id: number,
): Promise<ReplayResult> {
  const stored = await messaging.jsm.streams.getMessage(DEAD_LETTERS_STREAM_NAME, { seq: id });
  const origin = stored ? parseJobSubject(stored.subject) : undefined;
  if (!stored || !origin) throw new Error(`No dead letter of a job with id ${id}`);
  const letter = stored.json<DeadLetter>();
  if (letter.unreadable)
    throw new Error(`Dead letter ${id} holds an unreadable message (${letter.error.message}); it can't be replayed`);
  const added = await producer.add(letter.queue, letter.name, letter.data, {
    retryLimit: letter.retryLimit,
    deduplicationId: letter.deduplicationId,
    jobId: `${letter.jobId}-replay-${id}`.replace(/[^A-Za-z0-9_-]/g, '-'),
    replayOf: letter.jobId,
  });
  await messaging.jsm.streams.deleteMessage(DEAD_LETTERS_STREAM_NAME, id, false);
  return {
    id,
    queue: letter.queue,
    name: letter.name,
    replayOf: letter.jobId,
    jobId: added.id,
    deduplicated: added.deduplicated,
  };
}

/** Replays every dead letter of jobs (of one queue, if given), oldest first; stops at the first failure. */
export async function replayAllDeadLetters(
  messaging: Messaging,
  producer: JetStreamJobProducer,
  options: { queue?: string } = {},
): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (;;) {
    const batch = await listDeadLetters(messaging, { queue: options.queue, limit: 500 });
    const replayable = batch.filter((letter) => !letter.unreadable && !results.some((done) => done.id === letter.id));
    if (replayable.length === 0) return results;
    for (const letter of replayable) results.push(await replayDeadLetter(messaging, producer, letter.id));
  }
}
