import { RetentionPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { StreamSizing, StreamSpec } from '@berth/messaging';
import {
  fairQueueFilter,
  fairSubject as encodedFairSubject,
  JOB_HEADERS,
  STREAMS,
  STREAM_SUBJECTS,
} from '@berth/contract';
import { encodeKey } from './kv-key-slots';

/** The stream of fair jobs waiting for their key's turn. */
export const FAIR_JOBS_STREAM_NAME: string = STREAMS.fairJobs;

/** The header of a fair job message naming its job (as its subject's last token does). */
export const FAIR_JOB_NAME_HEADER: string = JOB_HEADERS.jobName;

/** `fair.<queue>.<base64url key>.<name>`: the fair jobs of one key and job name of a queue, oldest first. */
export function fairSubject(queue: string, key: string, name: string): string {
  return encodedFairSubject(queue, encodeKey(key), name);
}

export { fairQueueFilter };

/**
 * `JOBS_FAIR`: jobs added with `fair: { key }`, one subject per queue, key and job name. No consumer reads it: the queue's
 * feeder (one worker at a time) moves the oldest message of each key to `JOBS` in turn, round-robin (a key of
 * weight w gives w messages a turn), and only while few jobs wait there, so a key with a long backlog takes its
 * turn beside the others instead of ahead of them. Kept like `JOBS` (14 days, refuses when full).
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
