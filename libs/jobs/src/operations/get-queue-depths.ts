import { parkedFilter } from '@berth/contract';
import type { ConsumerInfo, MsgRequest } from '@nats-io/jetstream';
import { isNotFound, type Messaging } from '@berth/messaging';
import { countDeadLetters } from '../dead-letters/list-dead-letters';
import { PARKED_JOBS_STREAM_NAME } from '../drivers/jetstream/parked-jobs-stream';
import {
  DELAYED_JOBS_STREAM_NAME,
  delayedJobsFilter,
  JOBS_STREAM_NAME,
  parseJobSubject,
  queueOfConsumer,
  queueOfDelayedSubject,
} from '../names';

/**
 * The state of one queue, from its consumers (on `JOBS` and `JOBS_DELAYED`) and the streams. Counts are messages:
 * jobs queued in one burst may share a message.
 */
export interface QueueDepth {
  queue: string;
  /** Waiting for a worker. */
  pending: number;
  /** Handed to a worker and not yet acked: running, or waiting for a retry (nak with delay). */
  ackPending: number;
  /** Delivered more than once and still not acked (retries, or a worker that died). */
  redelivered: number;
  /** Workers' pull requests waiting for jobs (roughly, idle worker slots). */
  waitingPulls: number;
  /** Delayed jobs not due yet. */
  delayed: number;
  /** Jobs in the dead letters. */
  deadLetters: number;
  /** Jobs parked for a slot of their per-key concurrency limit (in `JOBS_PARKED`). */
  parked: number;
  /**
   * When the oldest message still waiting for a worker was stored (on `JOBS` or, for a due delayed job, on
   * `JOBS_DELAYED`); undefined when none waits. A retry waiting out its backoff is not waiting for a worker.
   */
  oldestWaitingAt?: Date;
}

/** Queue depths for every queue that has a consumer, delayed jobs or dead letters. */
export async function getQueueDepths(messaging: Messaging): Promise<QueueDepth[]> {
  const depths = new Map<string, QueueDepth>();
  const depthOf = (queue: string): QueueDepth => {
    let depth = depths.get(queue);
    if (!depth)
      depths.set(
        queue,
        (depth = {
          queue,
          pending: 0,
          ackPending: 0,
          redelivered: 0,
          waitingPulls: 0,
          delayed: 0,
          deadLetters: 0,
          parked: 0,
        }),
      );
    return depth;
  };
  for (const stream of [JOBS_STREAM_NAME, DELAYED_JOBS_STREAM_NAME]) {
    try {
      for (const info of await messaging.jsm.consumers.list(stream).next()) {
        const queue = queueOfConsumer(info.name);
        if (!queue) continue;
        const depth = depthOf(queue);
        depth.pending += info.num_pending;
        depth.ackPending += info.num_ack_pending;
        depth.redelivered += info.num_redelivered;
        depth.waitingPulls += info.num_waiting;
        const oldest = await oldestPendingAt(messaging, stream, info);
        if (oldest && (!depth.oldestWaitingAt || oldest < depth.oldestWaitingAt)) depth.oldestWaitingAt = oldest;
      }
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  try {
    const delayed = await messaging.jsm.streams.info(DELAYED_JOBS_STREAM_NAME, {
      subjects_filter: delayedJobsFilter(),
    });
    for (const [subject, count] of Object.entries(
      (delayed.state.subjects as Record<string, number> | undefined) ?? {},
    )) {
      const queue = queueOfDelayedSubject(subject);
      if (queue) depthOf(queue).delayed += count;
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  try {
    const parked = await messaging.jsm.streams.info(PARKED_JOBS_STREAM_NAME, { subjects_filter: parkedFilter() });
    for (const [subject, count] of Object.entries((parked.state.subjects as Record<string, number> | undefined) ?? {}))
      depthOf(subject.split('.')[1]).parked += count;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  for (const [subject, count] of Object.entries(await countDeadLetters(messaging))) {
    const origin = parseJobSubject(subject);
    if (origin) depthOf(origin.queue).deadLetters += count;
  }
  return [...depths.values()].sort((a, b) => a.queue.localeCompare(b.queue));
}

/** The storage time of the first message past what the consumer has delivered, within its filter. */
async function oldestPendingAt(messaging: Messaging, stream: string, info: ConsumerInfo): Promise<Date | undefined> {
  const filter = info.config.filter_subject ?? info.config.filter_subjects?.[0];
  if (info.num_pending === 0 || !filter) return undefined;
  // STREAM.MSG.GET takes `next_by_subj` (the first message on or after `seq` matching the filter); nats.js types only name `seq` and `last_by_subj`.
  const request = { seq: info.delivered.stream_seq + 1, next_by_subj: filter } as unknown as MsgRequest;
  const message = await messaging.jsm.streams.getMessage(stream, request);
  return message ? message.time : undefined;
}
