import { parkedSubject, STREAMS, STREAM_SUBJECTS } from '@berth/contract';
import { RetentionPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { StreamSizing, StreamSpec } from '@berth/messaging';

/** The stream of jobs waiting for a per-key concurrency slot. */
export const PARKED_JOBS_STREAM_NAME: string = STREAMS.parkedJobs;

/** `parked.<queue>.<base64url key>`: jobs of one concurrency key waiting for a slot, oldest first. */
export { parkedSubject };

/**
 * `JOBS_PARKED`: jobs that found every slot of their concurrency key taken, one subject per queue and key. No
 * consumer reads it: the worker that frees a slot takes the oldest message of that key's subject (a get by subject,
 * then a delete by sequence) and puts the job back on `JOBS`. Kept like `JOBS` (14 days, refuses when full).
 */
export function parkedJobsStream(sizing: StreamSizing = {}): StreamSpec {
  return {
    name: PARKED_JOBS_STREAM_NAME,
    subjects: [...STREAM_SUBJECTS.parkedJobs],
    retention: RetentionPolicy.Limits,
    max_age: nanos(14 * 24 * 60 * 60 * 1000),
    duplicate_window: nanos(10 * 60 * 1000),
    num_replicas: sizing.replicas ?? 1,
  };
}
