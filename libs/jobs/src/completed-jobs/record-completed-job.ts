import type { BerthLogger } from '@berth/logger';
import { publishMessage } from '@berth/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { JobObserver } from '../job-observer';
import {
  COMPLETED_JOBS_STREAM_NAME,
  completedJobSubject,
  MAX_RECORDED_DATA_BYTES,
  type CompletedJob,
} from './completed-job';

/** What {@link recordCompletedJob} needs: where to publish, and where to report a record it could not store. */
export interface CompletionRecorder {
  js: JetStreamClient;
  logger: BerthLogger;
  observer?: JobObserver;
}

/**
 * Stores the record of a job that completed in `JOBS_COMPLETED`, awaiting the server's PubAck. The worker calls it
 * after the successful attempt and before it acks the job's message, so a record never stands for a job whose ack
 * is still to come and could yet run again unrecorded. It never throws: a record that cannot be stored (the stream
 * missing, the server slow) must not fail or retry a job that ran, so it is logged and reported to the observer
 * (`jobCompletionNotRecorded`) instead. `Nats-Msg-Id` `<queue>:<jobId>:<attempt>` keeps one record per attempt.
 */
export async function recordCompletedJob(recorder: CompletionRecorder, completed: CompletedJob): Promise<void> {
  try {
    await publishMessage(recorder.js, {
      subject: completedJobSubject(completed.queue),
      data: encodeCompletedJob(completed),
      msgId: `${completed.queue}:${completed.jobId}:${completed.attempt}`,
      expectedStream: COMPLETED_JOBS_STREAM_NAME,
    });
  } catch (error) {
    recorder.logger.warn(
      { err: error, queue: completed.queue, jobId: completed.jobId },
      `Job ${completed.jobId} completed, but its record could not be stored in ${COMPLETED_JOBS_STREAM_NAME}`,
    );
    recorder.observer?.jobCompletionNotRecorded?.({ queue: completed.queue, name: completed.name });
  }
}

/** The JSON of a record; data whose JSON is over {@link MAX_RECORDED_DATA_BYTES} is left out and marked so. */
export function encodeCompletedJob(completed: CompletedJob): string {
  const data = JSON.stringify(completed.data ?? null);
  if (Buffer.byteLength(data) <= MAX_RECORDED_DATA_BYTES) return JSON.stringify(completed);
  const { data: _omitted, ...rest } = completed;
  return JSON.stringify({ ...rest, dataOmitted: true });
}
