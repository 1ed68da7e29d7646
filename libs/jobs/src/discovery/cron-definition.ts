import { CronTime } from 'cron';
import { CRON_QUEUE_NAME } from '../names';

/** A scheduled job found at start-up: what a scheduler registers. */
export interface CronDefinition {
  /** The job name (its `@Process` name, the class name by convention), also the schedule's identity. */
  name: string;
  /** 5-field cron pattern. */
  pattern: string;
  /** IANA time zone the pattern is read in (`UTC` unless the class says otherwise). */
  timeZone: string;
  /** Always `cron-queue`: adding this job there runs the cron once. */
  queue: typeof CRON_QUEUE_NAME;
  /** The class that runs it. */
  className: string;
}

/** The time zone a pattern is read in when `@CronProcessor` gives none. */
export const DEFAULT_CRON_TIME_ZONE = 'UTC';

/**
 * Throws unless `pattern` is a valid 5-field cron pattern (minute, hour, day of month, month, day of week) and
 * `timeZone` a zone this runtime knows. Returns the next time it fires, as a check a human can read.
 */
export function validateCronPattern(pattern: string, timeZone: string = DEFAULT_CRON_TIME_ZONE, from: Date = new Date()): Date {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`Cron pattern ${JSON.stringify(pattern)} must have 5 fields (minute hour day-of-month month day-of-week), it has ${fields.length}`);
  try {
    const time = new CronTime(pattern, timeZone);
    return time.getNextDateFrom(from, timeZone).toJSDate();
  } catch (error) {
    throw new Error(`Invalid cron schedule ${JSON.stringify(pattern)} (${timeZone}): ${(error as Error).message}`, { cause: error });
  }
}
