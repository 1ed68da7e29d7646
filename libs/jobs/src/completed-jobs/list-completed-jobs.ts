import { isNotFound, type Messaging } from '@berth/messaging';
import { assertQueueName } from '../names';
import {
  COMPLETED_JOBS_STREAM_NAME,
  completedJobSubject,
  type CompletedJob,
  type StoredCompletedJob,
} from './completed-job';

/** Records read at most per queue: more than the stream keeps by default (see `completedJobsStream`). */
const READ_LIMIT = 1000;

/**
 * The last completed jobs of a queue, newest first (at most `limit`, default 50), as workers recorded them in
 * `JOBS_COMPLETED`: data, the attempt that succeeded, its duration, when it ended. Empty when the stream does not
 * exist. The stream keeps the last `keepPerQueue` messages of each queue for 7 days, each one or more records.
 */
export async function listCompletedJobs(
  messaging: Messaging,
  queue: string,
  options: { limit?: number } = {},
): Promise<StoredCompletedJob[]> {
  assertQueueName(queue);
  const limit = options.limit ?? 50;
  const subject = completedJobSubject(queue);
  const records: StoredCompletedJob[] = [];
  let seq = 0;
  while (records.length < READ_LIMIT) {
    const message = await nextMessage(messaging, seq, subject);
    if (!message) break;
    seq = message.seq + 1;
    try {
      const body = message.json<unknown>();
      const stored = (Array.isArray(body) ? body : [body]) as CompletedJob[];
      stored.forEach((record, index) => records.push({ ...record, id: `${message.seq}.${index}` }));
    } catch {
      // A message that is not JSON was not written by a worker: skipped.
    }
  }
  // One record per attempt: an attempt recorded twice (its worker died between the record and the ack, and the
  // same attempt number came round again) is listed once, as first stored.
  const seen = new Set<string>();
  const unique = records.filter((record) => {
    const key = `${record.jobId}:${record.attempt}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.slice(-limit).reverse();
}

async function nextMessage(messaging: Messaging, seq: number, subject: string) {
  try {
    // The API's `next_by_subj`, which the client's `MsgRequest` type does not name.
    return await messaging.jsm.streams.getMessage(COMPLETED_JOBS_STREAM_NAME, { seq, next_by_subj: subject } as never);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
