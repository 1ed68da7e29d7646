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
 * exist. The stream keeps the last `keepPerQueue` of each queue (100 by default) for 7 days.
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
      records.push({ ...message.json<CompletedJob>(), id: message.seq });
    } catch {
      // A record that is not JSON was not written by a worker: skipped.
    }
  }
  return records.slice(-limit).reverse();
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
