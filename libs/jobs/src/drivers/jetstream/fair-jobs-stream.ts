import { RetentionPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { StreamSizing, StreamSpec } from '@berth/messaging';
import { fairQueueFilter, fairSubject, JOB_HEADERS, STREAMS, STREAM_SUBJECTS } from '@berth/contract';

/** The stream of fair jobs waiting for their key's turn. */
export const FAIR_JOBS_STREAM_NAME: string = STREAMS.fairJobs;

/** The header of a fair job message naming its job (as its subject's last token does). */
export const FAIR_JOB_NAME_HEADER: string = JOB_HEADERS.jobName;

export { fairQueueFilter, fairSubject };

/**
 * `f.<queue>` in `berth_job_windows`: the lease of the queue's fair feeder, and its plan. Its existence tells
 * producers that the queue serves fair jobs.
 */
export function fairFeederLeaseKey(queue: string): string {
  return `f.${queue}`;
}

/**
 * `JOBS_FAIR`: fair jobs waiting for their key's turn, one subject per queue and job name, each record naming its
 * key. No consumer reads it: the queue's feeder (one worker at a time, see `startFairFeeder`) reads it in order and
 * moves jobs to `JOBS` round-robin over their keys (a key of weight w takes w jobs a turn), only while few jobs wait
 * there, so a key with a long backlog takes its turn beside the others instead of ahead of them. Kept like `JOBS`
 * (14 days, refuses when full).
 */
export function fairJobsStream(sizing: StreamSizing = {}): StreamSpec {
  return {
    name: FAIR_JOBS_STREAM_NAME,
    subjects: [...STREAM_SUBJECTS.fairJobs],
    retention: RetentionPolicy.Limits,
    max_age: nanos(14 * 24 * 60 * 60 * 1000),
    duplicate_window: nanos(10 * 60 * 1000),
    num_replicas: sizing.replicas ?? 1,
  };
}
