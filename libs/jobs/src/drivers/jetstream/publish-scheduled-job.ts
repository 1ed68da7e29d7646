import { JOB_HEADERS, NATS_HEADERS } from '@berth/contract';
import { publishMessage, type PublishResult } from '@berth/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';
import { DELAYED_JOBS_STREAM_NAME, delayedJobSubject, dueJobSubject } from '../../names';
import { encodeJobRecords, JOB_COUNT_HEADER, type JobRecord } from '../../job-record';

/**
 * Stores a job that must not run before `runAt` as a one-shot JetStream message schedule (nats-server 2.12+) in
 * `JOBS_DELAYED`: the message waits on `delayed-jobs.at.<queue>.<jobId>`, which no consumer reads, and the server
 * publishes its body to `delayed-jobs.due.<queue>.<name>` when it is due, then removes it; the queue's workers
 * take it from there. The wait survives restarts of workers and of the server, holds no consumer slot (unlike a
 * nak with a delay), and the first delivery is the first attempt. The server checks schedules at most every
 * 250 ms, so a job runs at `runAt` or a little after, never before.
 */
/** The header naming why a scheduled job waits: `delay`, `retry`, or `rate-limit` (for `berth jobs why`). */
export const WAIT_REASON_HEADER = JOB_HEADERS.waitReason;

export async function publishScheduledJob(
  js: JetStreamClient,
  queue: string,
  name: string,
  record: JobRecord,
  runAt: Date,
  msgId: string,
  reason = 'delay',
): Promise<PublishResult> {
  return publishMessage(js, {
    subject: delayedJobSubject(queue, record.id),
    data: encodeJobRecords([record]),
    msgId,
    expectedStream: DELAYED_JOBS_STREAM_NAME,
    headers: {
      [NATS_HEADERS.schedule]: `@at ${runAt.toISOString()}`,
      [NATS_HEADERS.scheduleTarget]: dueJobSubject(queue, name),
      [JOB_HEADERS.notBefore]: runAt.toISOString(),
      [WAIT_REASON_HEADER]: reason,
      [JOB_COUNT_HEADER]: '1',
    },
  });
}
