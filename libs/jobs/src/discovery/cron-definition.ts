import { CronTime } from 'cron';
import { systemClock } from '@berth/contract';

/** A scheduled job found at start-up: what a scheduler registers. */
export interface CronDefinition {
  /** The job name (its `@Process` name, the class name by convention), also the schedule's identity. */
  name: string;
  /** Cron pattern: 5 fields, or 6 with seconds first. */
  pattern: string;
  /** IANA time zone the pattern is read in (`UTC` unless the class says otherwise). */
  timeZone: string;
  /**
   * The queue its ticks are jobs of: `cron-queue` unless `@CronProcessor({ queueName })` names another (a process
   * that runs its own crons apart from the worker's, like the scheduler's platform crons). Adding this job there runs
   * the cron once.
   */
  queue: string;
  /** The class that runs it. */
  className: string;
}

/** The time zone a pattern is read in when `@CronProcessor` gives none. */
export const DEFAULT_CRON_TIME_ZONE = 'UTC';

/**
 * Throws unless `pattern` is a valid cron pattern, 5 fields (minute hour day-of-month month day-of-week) or 6 with
 * seconds first (`*\/5 * * * * *`: every 5 seconds), and `timeZone` a zone this runtime knows. `@daily`-style
 * aliases are refused, as the schedule registry (`@berth/cron`) refuses them. Returns the next time it fires, as a
 * check a human can read.
 */
export function validateCronPattern(
  pattern: string,
  timeZone: string = DEFAULT_CRON_TIME_ZONE,
  from: Date = systemClock.now(),
): Date {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    throw new Error(
      `Cron pattern ${JSON.stringify(pattern)} must have 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first; it has ${fields.length}`,
    );
  }
  try {
    const time = new CronTime(pattern.trim(), timeZone);
    return time.getNextDateFrom(from, timeZone).toJSDate();
  } catch (error) {
    throw new Error(`Invalid cron schedule ${JSON.stringify(pattern)} (${timeZone}): ${(error as Error).message}`, {
      cause: error,
    });
  }
}
