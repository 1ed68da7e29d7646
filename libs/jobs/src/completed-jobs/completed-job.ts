import { completedJobSubject, STREAMS, STREAM_SUBJECTS } from '@berth/contract';
import type { StreamSizing, StreamSpec } from '@berth/messaging';
import { DiscardPolicy, RetentionPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';

/** The stream of the last completed jobs of each queue (`completed-jobs.<queue>`). */
export const COMPLETED_JOBS_STREAM_NAME: string = STREAMS.completedJobs;

export { completedJobSubject };

/** Completed jobs kept per queue unless the provisioner says otherwise. */
export const DEFAULT_COMPLETED_JOBS_KEPT = 100;

/** Largest JSON of a job's data kept in its completion record; larger data is left out (`dataOmitted`). */
export const MAX_RECORDED_DATA_BYTES = 16 * 1024;

/** How a job that completed ran, as the worker records it in `JOBS_COMPLETED` before it acks the job's message. */
export interface CompletedJob {
  queue: string;
  name: string;
  jobId: string;
  /** The job's data, unless its JSON is over {@link MAX_RECORDED_DATA_BYTES}. */
  data?: unknown;
  /** True when the data was too large to record. */
  dataOmitted?: boolean;
  /** The attempt that succeeded (1 for the first), of `retryLimit + 1`. */
  attempt: number;
  retryLimit: number;
  /** When the job was added, and when its successful attempt ended (ISO 8601). */
  addedAt: string | null;
  completedAt: string;
  /** How long the successful attempt took, including its wait for gates and a slot, in ms. */
  durationMs: number;
  outcome: 'completed';
  /** The dead letter's job id it was replayed from, if any. */
  replayOf?: string;
}

/** A completion record as stored, with its place in `JOBS_COMPLETED`: `<message sequence>.<index in the message>`. */
export interface StoredCompletedJob extends CompletedJob {
  id: string;
}

/** Options of `JOBS_COMPLETED`, given to `provisionJobInfrastructure`. */
export interface CompletedJobsOptions {
  /** Messages of completed jobs kept per queue, the newest, each one or more records (default 100). */
  keepPerQueue?: number;
  /** Age after which a record is dropped, in ms (default 7 days). */
  maxAgeMs?: number;
}

/**
 * `JOBS_COMPLETED`: a record of each job that completed, one subject per queue, bounded twice: the last
 * `keepPerQueue` messages of each queue (`max_msgs_per_subject`; the oldest goes when a new one comes, `discard:
 * old`), each holding the records of one group commit (so at least `keepPerQueue` records), and 7 days. No consumer reads it; the console and `listCompletedJobs` read it by subject. It reserves no
 * storage (`max_bytes` unset): its size is bounded by queues × records × {@link MAX_RECORDED_DATA_BYTES}.
 */
export function completedJobsStream(sizing: StreamSizing = {}, options: CompletedJobsOptions = {}): StreamSpec {
  return {
    name: COMPLETED_JOBS_STREAM_NAME,
    subjects: [...STREAM_SUBJECTS.completedJobs],
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: options.keepPerQueue ?? DEFAULT_COMPLETED_JOBS_KEPT,
    max_age: nanos(options.maxAgeMs ?? 7 * 24 * 60 * 60 * 1000),
    duplicate_window: nanos(2 * 60 * 1000),
    num_replicas: sizing.replicas ?? 1,
  };
}
