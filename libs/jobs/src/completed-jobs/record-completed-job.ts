import type { BerthLogger } from '@berth/logger';
import { GroupCommitQueue, publishMessage, type GroupCommitOptions, type PublishResult } from '@berth/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { JobObserver } from '../job-observer';
import {
  COMPLETED_JOBS_STREAM_NAME,
  completedJobSubject,
  MAX_RECORDED_DATA_BYTES,
  type CompletedJob,
} from './completed-job';

/** What a {@link CompletionRecorder} needs: where to publish, and where to report a record it could not store. */
export interface CompletionRecorderOptions {
  js: JetStreamClient;
  logger: BerthLogger;
  observer?: JobObserver;
  /** How records share a message (defaults: up to 100 records, 256 KiB, two messages in flight per queue). */
  batching?: GroupCommitOptions;
}

/**
 * Stores the records of jobs that completed in `JOBS_COMPLETED`. The worker awaits {@link record} after the
 * successful attempt and before it acks the job's message, so a record never stands for a job whose ack is still to
 * come. Records of one queue share messages (a group commit, as job adds do): with `sync_interval: always` every
 * stored message costs an fsync, and one message per completed job would cost each job an fsync of its own on top of
 * its ack. A message holds a JSON array of records.
 *
 * It never throws: a record that cannot be stored (the stream missing, the server slow) must not fail or retry a job
 * that ran, so it is logged and reported to the observer (`jobCompletionNotRecorded`) instead.
 */
export class CompletionRecorder {
  private readonly batches: GroupCommitQueue<CompletedJob, PublishResult>;

  constructor(private readonly options: CompletionRecorderOptions) {
    this.batches = new GroupCommitQueue(
      (subject, records) =>
        publishMessage(options.js, {
          subject,
          data: encodeCompletedJobs(records),
          expectedStream: COMPLETED_JOBS_STREAM_NAME,
        }),
      { maxItemsPerMessage: 100, maxBytesPerMessage: 256 * 1024, ...options.batching },
    );
  }

  /** Stores the record of one completed job; resolves once it is stored, or once its failure is reported. */
  async record(completed: CompletedJob): Promise<void> {
    try {
      await this.batches.enqueue(completedJobSubject(completed.queue), completed, recordSize(completed));
    } catch (error) {
      this.options.logger.warn(
        { err: error, queue: completed.queue, jobId: completed.jobId },
        `Job ${completed.jobId} completed, but its record could not be stored in ${COMPLETED_JOBS_STREAM_NAME}`,
      );
      this.options.observer?.jobCompletionNotRecorded?.({ queue: completed.queue, name: completed.name });
    }
  }
}

/** What a record keeps: the job's data unless its JSON is over {@link MAX_RECORDED_DATA_BYTES}, then marked so. */
function keptRecord(completed: CompletedJob): CompletedJob {
  const data = JSON.stringify(completed.data ?? null);
  if (Buffer.byteLength(data) <= MAX_RECORDED_DATA_BYTES) return completed;
  const { data: _omitted, ...rest } = completed;
  return { ...rest, dataOmitted: true };
}

function recordSize(completed: CompletedJob): number {
  return Math.min(Buffer.byteLength(JSON.stringify(completed.data ?? null)), MAX_RECORDED_DATA_BYTES) + 512;
}

/** The body of one `JOBS_COMPLETED` message: a JSON array of records, oldest first. */
export function encodeCompletedJobs(records: CompletedJob[]): string {
  return JSON.stringify(records.map(keptRecord));
}
