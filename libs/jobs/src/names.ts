import { STREAMS } from '@berth/contract';

/** The queue every `@CronProcessor` class is on: a cron tick is an ordinary job of this queue. */
export const CRON_QUEUE_NAME = 'cron-queue';

/** The stream holding every job (`jobs.<queue>.<name>`), from `jobsStream()` of `@berth/messaging`. */
export const JOBS_STREAM_NAME: string = STREAMS.jobs;

/** The stream holding delayed jobs (`delayed-jobs.>`), from `delayedJobsStream()` of `@berth/messaging`. */
export const DELAYED_JOBS_STREAM_NAME: string = STREAMS.delayedJobs;

/** The stream holding dead letters (`dead.<origin subject>`), from `deadLettersStream()` of `@berth/messaging`. */
export const DEAD_LETTERS_STREAM_NAME: string = STREAMS.deadLetters;

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

/** The subjects and consumer names of jobs, from the wire contract (`@berth/contract`). */
export {
  jobSubject,
  PRIORITY_LEVELS,
  priorityJobSubject,
  jobSubjectOf,
  priorityFilterSubject,
  priorityConsumerName,
  queueFilterSubject,
  delayedJobSubject,
  delayedJobsFilter,
  dueJobSubject,
  dueQueueFilterSubject,
  deadLetterSubject,
  deadLettersFilter,
  queueConsumerName,
  queueOfConsumer,
} from '@berth/contract';

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
