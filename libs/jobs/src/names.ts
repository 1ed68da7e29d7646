/** The queue every `@CronProcessor` class is on: a cron tick is an ordinary job of this queue. */
export const CRON_QUEUE_NAME = 'cron-queue';

/** The stream holding every job (`jobs.<queue>.<name>`), from `jobsStream()` of `@berth/messaging`. */
export const JOBS_STREAM_NAME = 'JOBS';

/** The stream holding delayed jobs (`delayed-jobs.>`), from `delayedJobsStream()` of `@berth/messaging`. */
export const DELAYED_JOBS_STREAM_NAME = 'JOBS_DELAYED';

/** The stream holding dead letters (`dead.<origin subject>`), from `deadLettersStream()` of `@berth/messaging`. */
export const DEAD_LETTERS_STREAM_NAME = 'DEAD_LETTERS';

/** Queue and job names: one subject token, letters, digits, `-` and `_`, not starting with `_`. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Throws unless `name` can be a queue name (one NATS subject token, e.g. `client-queue`). */
export function assertQueueName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new Error(
      `Invalid queue name ${JSON.stringify(name)}: use letters, digits, "-" and "_", starting with a letter or digit`,
    );
  }
}

/** Throws unless `name` can be a job name (one NATS subject token, e.g. `SendClientSummaryJob`). */
export function assertJobName(name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new Error(
      `Invalid job name ${JSON.stringify(name)}: use letters, digits, "-" and "_", starting with a letter or digit`,
    );
  }
}

/** `jobs.<queue>.<name>`: where a job waits for a worker. */
export function jobSubject(queue: string, name: string): string {
  return `jobs.${queue}.${name}`;
}

/** Job priorities go from 1 (most urgent) to this; a job without one is served before any of them (as in BullMQ). */
export const PRIORITY_LEVELS = 10;

/**
 * `jobs._p<priority>.<queue>.<name>`: where a job with a priority waits, one band per priority. `_p…` can't be a
 * queue name (those don't start with `_`), so the band is outside the queue's `jobs.<queue>.>` and its consumer.
 */
export function priorityJobSubject(queue: string, priority: number, name: string): string {
  return `jobs._p${priority}.${queue}.${name}`;
}

/** The subject of a job: {@link priorityJobSubject} with a priority, {@link jobSubject} without. */
export function jobSubjectOf(queue: string, name: string, priority: number | undefined): string {
  return priority === undefined ? jobSubject(queue, name) : priorityJobSubject(queue, priority, name);
}

/** `jobs._p<priority>.<queue>.>`: one priority band of a queue, the filter of its band consumer. */
export function priorityFilterSubject(queue: string, priority: number): string {
  return `jobs._p${priority}.${queue}.>`;
}

/** `jobs-<queue>~p<priority>`: the durable consumer of one priority band, shared by the queue's workers. */
export function priorityConsumerName(queue: string, priority: number): string {
  return `${queueConsumerName(queue)}~p${priority}`;
}

/** `jobs.<queue>.>`: every job of a queue, the filter of its consumer. */
export function queueFilterSubject(queue: string): string {
  return `jobs.${queue}.>`;
}

/** `delayed-jobs.at.<queue>.<jobId>`: a delayed job, held as a one-shot message schedule until it is due. */
export function delayedJobSubject(queue: string, jobId: string): string {
  return `delayed-jobs.at.${queue}.${jobId}`;
}

/** `delayed-jobs.at.>`, or only one queue's delayed jobs. */
export function delayedJobsFilter(queue?: string): string {
  return queue ? `delayed-jobs.at.${queue}.>` : 'delayed-jobs.at.>';
}

/** `delayed-jobs.due.<queue>.<name>`: where the server puts a delayed job when it is due. */
export function dueJobSubject(queue: string, name: string): string {
  return `delayed-jobs.due.${queue}.${name}`;
}

/** `delayed-jobs.due.<queue>.>`: the due jobs of a queue, the filter of its consumer on `JOBS_DELAYED`. */
export function dueQueueFilterSubject(queue: string): string {
  return `delayed-jobs.due.${queue}.>`;
}

/** `dead.jobs.<queue>.<name>`: a job that failed for good. */
export function deadLetterSubject(queue: string, name: string): string {
  return `dead.${jobSubject(queue, name)}`;
}

/** `dead.jobs.>`, or only one queue's dead letters. */
export function deadLettersFilter(queue?: string): string {
  return queue ? `dead.jobs.${queue}.>` : 'dead.jobs.>';
}

/** `jobs-<queue>`: the durable consumer every worker of a queue shares (on `JOBS`, and on `JOBS_DELAYED`). */
export function queueConsumerName(queue: string): string {
  return `jobs-${queue}`;
}

/** The queue of a consumer named by {@link queueConsumerName} or {@link priorityConsumerName}, or undefined for others. */
export function queueOfConsumer(consumerName: string): string | undefined {
  return consumerName.startsWith('jobs-') ? consumerName.slice('jobs-'.length).replace(/~p\d+$/, '') : undefined;
}

/**
 * Splits a job's subject: `jobs.<queue>.<name>`, `jobs._p<priority>.<queue>.<name>`,
 * `delayed-jobs.due.<queue>.<name>` or `dead.jobs.<queue>.<name>`; undefined for any other subject.
 */
export function parseJobSubject(subject: string): { queue: string; name: string } | undefined {
  const tokens = subject.split('.');
  if (tokens.length === 4 && tokens[0] === 'jobs' && /^_p\d+$/.test(tokens[1])) tokens.splice(1, 1);
  const prefix = tokens.slice(0, -2).join('.');
  if (tokens.length < 3 || !['jobs', 'dead.jobs', 'delayed-jobs.due'].includes(prefix)) return undefined;
  return { queue: tokens[tokens.length - 2], name: tokens[tokens.length - 1] };
}

/** The queue of a delayed job's subject (`delayed-jobs.at.<queue>.<jobId>`), or undefined. */
export function queueOfDelayedSubject(subject: string): string | undefined {
  const tokens = subject.split('.');
  return tokens.length === 4 && tokens[0] === 'delayed-jobs' && tokens[1] === 'at' ? tokens[2] : undefined;
}
