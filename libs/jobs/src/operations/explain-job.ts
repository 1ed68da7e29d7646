import { JOB_HEADERS, NATS_HEADERS, parkedFilter } from '@berth/contract';
import type { MsgRequest, StoredMsg } from '@nats-io/jetstream';
import { isNotFound, type Messaging } from '@berth/messaging';
import { listCompletedJobs } from '../completed-jobs/list-completed-jobs';
import { listDeadLetters } from '../dead-letters/list-dead-letters';
import { openKvCancellations } from '../drivers/jetstream/kv-cancellations';
import { openKvKeySlots } from '../drivers/jetstream/kv-key-slots';
import { openKvJobWindows } from '../drivers/jetstream/kv-job-windows';
import { movedByFairFeeder } from '../drivers/jetstream/fair-feeder';
import { PARKED_JOBS_STREAM_NAME } from '../drivers/jetstream/parked-jobs-stream';
import { FAIR_JOBS_STREAM_NAME, fairQueueFilter } from '../drivers/jetstream/fair-jobs-stream';
import { WAIT_REASON_HEADER } from '../drivers/jetstream/publish-scheduled-job';
import type { JobRecord } from '../job-record';
import {
  DELAYED_JOBS_STREAM_NAME,
  delayedJobSubject,
  JOBS_STREAM_NAME,
  PRIORITY_LEVELS,
  priorityConsumerName,
  priorityFilterSubject,
  queueConsumerName,
  queueFilterSubject,
} from '../names';

/** Where one job is, and why it is not running (or not done). */
export interface JobExplanation {
  queue: string;
  jobId: string;
  state: 'cancelled' | 'delayed' | 'parked' | 'waiting' | 'delivered' | 'dead-lettered' | 'completed' | 'not-found';
  /** One sentence for a person. */
  reason: string;
}

/** Messages of a queue looked through for a job, at most (a job further back is reported not found). */
const SCAN_LIMIT = 10000;
/** Completion records looked through: all `listCompletedJobs` reads of a queue. */
const COMPLETED_LOOKUP_LIMIT = 1000;

/**
 * Finds a job and says why it waits: cancelled; delayed (and why: a delay, a retry's backoff, a rate limit) until
 * when; parked for a slot of its concurrency key (how many of the key run, how many are ahead); waiting for a worker
 * (messages ahead, free pulls); delivered (running, or between two attempts); waiting for its key's fair turn in
 * `JOBS_FAIR` (unless the feeder's lease marks it moved); dead-lettered; completed (among the records
 * `JOBS_COMPLETED` keeps, see `listCompletedJobs`: when, on which attempt, how long); or not found (unknown, or
 * completed longer ago than those records go back). Reads JetStream only; looks through at most 10,000 messages per
 * place.
 */
export async function explainJob(messaging: Messaging, queue: string, jobId: string): Promise<JobExplanation> {
  const base = { queue, jobId };
  const cancelled = (await (await openKvCancellations(messaging.js)).list(queue)).find(
    (record) => record.jobId === jobId,
  );
  if (cancelled)
    return {
      ...base,
      state: 'cancelled',
      reason: `cancelled at ${cancelled.cancelledAt}${cancelled.reason ? ` (${cancelled.reason})` : ''}: a worker drops it, or has dropped it`,
    };

  const delayed = await getMessage(messaging, DELAYED_JOBS_STREAM_NAME, {
    last_by_subj: delayedJobSubject(queue, jobId),
  });
  if (delayed) {
    const why = delayed.header?.get(WAIT_REASON_HEADER) || 'delay';
    return {
      ...base,
      state: 'delayed',
      reason: `waits in JOBS_DELAYED (${why}) until ${delayed.header?.get(JOB_HEADERS.notBefore)}`,
    };
  }

  const parked = await scan(messaging, PARKED_JOBS_STREAM_NAME, parkedFilter(queue), 0, jobId);
  if (parked) {
    const subject = parked.message.subject;
    const key = Buffer.from(subject.split('.')[2], 'base64url').toString('utf8');
    const slot = (await (await openKvKeySlots(messaging.js, messaging.jsm)).list(queue)).find(
      (state) => state.key === key,
    );
    const ahead = await scanCount(messaging, PARKED_JOBS_STREAM_NAME, subject, parked.message.seq);
    return {
      ...base,
      state: 'parked',
      reason: `waits for a slot of concurrency key ${key}: ${slot?.running.length ?? 0} of ${slot?.limit ?? '?'} running, ${ahead} parked ahead of it`,
    };
  }

  // The queue's jobs without priority, then each priority band (queues with `priorities`).
  const places = [
    { consumerName: queueConsumerName(queue), filter: queueFilterSubject(queue), band: '' },
    ...Array.from({ length: PRIORITY_LEVELS }, (_, n) => ({
      consumerName: priorityConsumerName(queue, n + 1),
      filter: priorityFilterSubject(queue, n + 1),
      band: ` (priority ${n + 1})`,
    })),
  ];
  for (const { consumerName, filter, band } of places) {
    const consumer = await messaging.jsm.consumers
      .info(JOBS_STREAM_NAME, consumerName)
      .catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error)));
    if (!consumer && band) continue;
    const inQueue = await scan(messaging, JOBS_STREAM_NAME, filter, consumer?.ack_floor.stream_seq ?? 0, jobId);
    if (!inQueue) continue;
    if (consumer && inQueue.message.seq <= consumer.delivered.stream_seq) {
      return {
        ...base,
        state: 'delivered',
        reason: `handed to a worker${band}: running, or waiting out a retry's backoff (${consumer.num_ack_pending} of the queue's messages are)`,
      };
    }
    if (!consumer)
      return {
        ...base,
        state: 'waiting',
        reason: 'waits in JOBS, and no worker of this queue has ever started (no consumer)',
      };
    return {
      ...base,
      state: 'waiting',
      reason: `waits for a worker${band}: ${inQueue.index} message(s) of the queue ahead of it, ${consumer.num_waiting} idle pull(s), ${consumer.num_ack_pending} running or retrying (max ${consumer.config.max_ack_pending})`,
    };
  }

  const fair = await scan(messaging, FAIR_JOBS_STREAM_NAME, fairQueueFilter(queue), 0, jobId);
  if (fair) {
    const records = fair.message.json<JobRecord[]>();
    const index = records.findIndex((record) => record.id === jobId);
    const leases = (await openKvJobWindows(messaging.js)).kv;
    // Its message stays in JOBS_FAIR until all of its jobs moved: the feeder's plan says whether this one did.
    if (!(await movedByFairFeeder(leases, queue, fair.message.seq, index))) {
      const key = records[index]?.fairKey ?? '';
      return {
        ...base,
        state: 'waiting',
        reason: `waits for the fair turn of key ${key} in JOBS_FAIR: ${fair.index} message(s) of the queue's fair jobs ahead of it`,
      };
    }
  }

  const letter = (await listDeadLetters(messaging, { queue, limit: SCAN_LIMIT })).find((l) => l.jobId === jobId);
  if (letter)
    return {
      ...base,
      state: 'dead-lettered',
      reason: `dead-lettered (${letter.reason}) at ${letter.failedAt}: ${letter.error.name}: ${letter.error.message}; replay with berth jobs dead replay ${letter.id}`,
    };
  const completed = (await listCompletedJobs(messaging, queue, { limit: COMPLETED_LOOKUP_LIMIT })).find(
    (record) => record.jobId === jobId,
  );
  if (completed)
    return {
      ...base,
      state: 'completed',
      reason: `completed at ${completed.completedAt} on attempt ${completed.attempt} of ${completed.retryLimit + 1}, in ${completed.durationMs} ms`,
    };
  return {
    ...base,
    state: 'not-found',
    reason:
      'not waiting anywhere and not among the completed jobs kept: no job of this queue has that id, or it completed longer ago',
  };
}

async function getMessage(
  messaging: Messaging,
  stream: string,
  request: MsgRequest | { seq: number; next_by_subj: string },
): Promise<StoredMsg | null> {
  try {
    return await messaging.jsm.streams.getMessage(stream, request as MsgRequest);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The message holding the job (a body of job records), and how many messages of the filter came before it. */
async function scan(
  messaging: Messaging,
  stream: string,
  filter: string,
  fromSeq: number,
  jobId: string,
): Promise<{ message: StoredMsg; index: number } | undefined> {
  let seq = fromSeq;
  for (let index = 0; index < SCAN_LIMIT; index++) {
    const message = await getMessage(messaging, stream, { seq, next_by_subj: filter });
    if (!message) return undefined;
    if (holds(message, jobId)) return { message, index };
    seq = message.seq + 1;
  }
  return undefined;
}

async function scanCount(messaging: Messaging, stream: string, subject: string, beforeSeq: number): Promise<number> {
  let count = 0;
  let seq = 0;
  for (; count < SCAN_LIMIT; count++) {
    const message = await getMessage(messaging, stream, { seq, next_by_subj: subject });
    if (!message || message.seq >= beforeSeq) return count;
    seq = message.seq + 1;
  }
  return count;
}

function holds(message: StoredMsg, jobId: string): boolean {
  if (message.header?.get(JOB_HEADERS.jobId) === jobId || message.header?.get(NATS_HEADERS.msgId) === jobId)
    return true;
  try {
    const records = message.json<JobRecord[]>();
    return Array.isArray(records) && records.some((record) => record?.id === jobId);
  } catch {
    return false;
  }
}
