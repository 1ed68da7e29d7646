import { JOB_HEADERS, jobSubject, STREAMS } from '@berth/contract';
import type { OutgoingMessage } from '@berth/messaging';
import type { CronSchedule } from './schedule';

/** The headers of a cron tick job, read by the job engine (the job headers of `@berth/contract`). */
export const CRON_JOB_HEADERS = Object.freeze({
  jobName: JOB_HEADERS.jobName,
  jobId: JOB_HEADERS.jobId,
  queue: JOB_HEADERS.queue,
  scheduledAt: JOB_HEADERS.scheduledAt,
});

/** The body of a cron tick job. */
export interface CronTickPayload {
  /** ISO time of the tick, e.g. `2025-03-30T01:00:00.000Z`. */
  scheduledAt: string;
}

/** `cron:<name>:<tick ISO>`: the job id and the `Nats-Msg-Id` of a tick, the same whichever scheduler emits it. */
export function cronTickId(name: string, tick: Date): string {
  return `cron:${name}:${tick.toISOString()}`;
}

/** `jobs.<queue>.<name>`: the JOBS subject of a cron's ticks. */
export function cronTickSubject(queue: string, name: string): string {
  return jobSubject(queue, name);
}

/**
 * The JetStream message for one tick: subject `jobs.cron-queue.<name>`, body `{"scheduledAt": "<ISO>"}`, the
 * job headers, and `Nats-Msg-Id: cron:<name>:<ISO>` so that two leaders in a split brain (or a new leader
 * re-emitting a tick whose record was lost) store it once within JOBS' 10-minute duplicate window.
 */
export function cronTickMessage(schedule: Pick<CronSchedule, 'name' | 'queue'>, tick: Date): OutgoingMessage {
  const id = cronTickId(schedule.name, tick);
  const scheduledAt = tick.toISOString();
  const payload: CronTickPayload = { scheduledAt };
  return {
    subject: cronTickSubject(schedule.queue, schedule.name),
    data: JSON.stringify(payload),
    msgId: id,
    expectedStream: STREAMS.jobs,
    headers: {
      [CRON_JOB_HEADERS.jobName]: schedule.name,
      [CRON_JOB_HEADERS.jobId]: id,
      [CRON_JOB_HEADERS.queue]: schedule.queue,
      [CRON_JOB_HEADERS.scheduledAt]: scheduledAt,
    },
  };
}
