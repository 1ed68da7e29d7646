import { delayedJobsFilter, JOB_HEADERS, NATS_HEADERS } from '@berth/contract';
import {
  DELAYED_JOBS_STREAM_NAME,
  JOBS_STREAM_NAME,
  listCancellations,
  parseJobSubject,
  queueConsumerName,
  queueFilterSubject,
  type JobRecord,
} from '@berth/jobs';
import { isNotFound, type Messaging } from '@berth/messaging';
import type { QueueJob, QueueJobs } from '../api/contract';

export type { QueueJob, QueueJobs };

type StoredMessage = NonNullable<Awaited<ReturnType<Messaging['jsm']['streams']['getMessage']>>>;

async function nextMessage(messaging: Messaging, stream: string, seq: number, filter: string) {
  try {
    return await messaging.jsm.streams.getMessage(stream, { seq, next_by_subj: filter } as never);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The job records of a message: its body (a JSON array of records); a message it cannot read yields none. */
function recordsOf(message: StoredMessage): JobRecord[] {
  try {
    const body = message.json<unknown>();
    return Array.isArray(body) ? (body as JobRecord[]) : [];
  } catch {
    return [];
  }
}

/**
 * The jobs of a queue still waiting or running, read in JetStream and only there (completed ones are listed from
 * `JOBS_COMPLETED` by `listCompletedJobs`, failed ones from the dead letters): `JOBS` messages of the queue
 * (work-queue retention keeps only unacknowledged ones), those up to the consumer's last delivered sequence being
 * with a worker; and the queue's delayed jobs in `JOBS_DELAYED`.
 * At most `limit` messages of each place are read. Jobs of priority bands, of fair-queueing keys and parked ones are
 * not listed here (`berth jobs why <queue> <id>` finds them).
 */
export async function listQueueJobs(messaging: Messaging, queue: string, limit = 50): Promise<QueueJobs> {
  const [consumer, cancellations] = await Promise.all([
    messaging.jsm.consumers
      .info(JOBS_STREAM_NAME, queueConsumerName(queue))
      .catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error))),
    listCancellations(messaging, queue),
  ]);
  const cancelled = new Map(cancellations.map((record) => [record.jobId, record.cancelledAt]));
  const delivered = consumer?.delivered.stream_seq ?? 0;
  const jobs: QueueJob[] = [];
  let truncated = false;
  const places = [
    { stream: JOBS_STREAM_NAME, filter: queueFilterSubject(queue) },
    { stream: DELAYED_JOBS_STREAM_NAME, filter: delayedJobsFilter(queue) },
  ];
  for (const { stream, filter } of places) {
    let seq = 0;
    for (let read = 0; ; read += 1) {
      const message = await nextMessage(messaging, stream, seq, filter);
      if (!message) break;
      if (read === limit) {
        truncated = true;
        break;
      }
      seq = message.seq + 1;
      const delayed = stream === DELAYED_JOBS_STREAM_NAME;
      // A delayed job's subject names its id; where it goes when due (`delayed-jobs.due.<queue>.<name>`) names it.
      const name =
        message.header?.get(JOB_HEADERS.jobName) ||
        parseJobSubject(message.header?.get(NATS_HEADERS.scheduleTarget) || message.subject)?.name ||
        '(unknown job)';
      for (const record of recordsOf(message)) {
        jobs.push({
          jobId: record.id,
          name,
          state: delayed ? 'delayed' : message.seq <= delivered ? 'running' : 'waiting',
          data: record.data,
          attemptsMade: record.attemptsMade ?? 0,
          retryLimit: record.retryLimit ?? 0,
          addedAt: record.addedAt ?? null,
          notBefore: delayed ? message.header?.get(JOB_HEADERS.notBefore) || null : null,
          waitReason: delayed ? message.header?.get(JOB_HEADERS.waitReason) || null : null,
          cancelledAt: cancelled.get(record.id) ?? null,
          streamSequence: message.seq,
        });
      }
    }
  }
  return { queue, jobs, truncated };
}
