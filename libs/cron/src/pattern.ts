import { CronTime } from 'cron';

/** The zone a schedule is read in when its definition names none (seed 000: "read in UTC, whatever your server's time zone"). */
export const DEFAULT_TIME_ZONE = 'UTC';

/** A cron pattern or time zone that Berth refuses; `message` says why. */
export class CronPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly timeZone: string,
    reason: string,
  ) {
    super(`Invalid cron schedule "${pattern}" (${timeZone}): ${reason}`);
    this.name = 'CronPatternError';
  }
}

/**
 * A validated pattern, ready to compute ticks. Ticks are computed on the *wall-clock line* (local time written as
 * if it were UTC, where no daylight-saving jump exists) by the `cron` package; `tick-schedule.ts` maps those
 * wall-clock times to instants in the zone with Berth's DST policy.
 */
export interface CompiledCron {
  /** The pattern as registered (5 fields, or 6 with seconds first). */
  readonly pattern: string;
  /** IANA zone name (`UTC`, `Europe/Berlin`). */
  readonly timeZone: string;
  /** True for a 6-field pattern (seconds first). */
  readonly hasSeconds: boolean;
  /**
   * True when the hour field is `*` (hourly, every N minutes or seconds): such a cron follows elapsed time across
   * DST changes. False when it names hours (daily, `0 *\/2 * * *`): it runs once per local occurrence day.
   */
  readonly everyHour: boolean;
  /** The first wall-clock tick strictly after `wallMs` (wall-clock line, in ms), or undefined if it never fires again. */
  nextWallAfter(wallMs: number): number | undefined;
}

const zoneCheck = new Map<string, boolean>();

/** True when the runtime's Intl (full ICU in Node 22) knows this IANA zone name. */
export function isValidTimeZone(timeZone: string): boolean {
  let known = zoneCheck.get(timeZone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone }).format(0);
      known = timeZone.trim() === timeZone && timeZone.length > 0;
    } catch {
      known = false;
    }
    zoneCheck.set(timeZone, known);
  }
  return known;
}

/**
 * Validates and compiles a pattern and zone.
 *
 * Accepted: the standard 5 fields (minute, hour, day of month, month, day of week, as crontab.guru reads them) and,
 * for fine-grained crons, 6 fields with seconds first (`*\/5 * * * * *` is every 5 seconds). Lists, ranges, steps
 * and month/day names (`mon-fri`, `jan`) are accepted; `@daily`-style aliases are refused so that what
 * `berth crons list` shows is a pattern any cron reader understands. A pattern that can never fire (`0 0 30 2 *`)
 * is refused too.
 *
 * @throws CronPatternError naming the problem.
 */
export function compileCronPattern(pattern: string, timeZone: string = DEFAULT_TIME_ZONE): CompiledCron {
  const source = pattern.trim();
  const fields = source.split(/\s+/);
  if (source.startsWith('@'))
    throw new CronPatternError(pattern, timeZone, 'aliases such as @daily are not accepted; write the 5 fields');
  if (fields.length !== 5 && fields.length !== 6) {
    throw new CronPatternError(
      pattern,
      timeZone,
      `expected 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, got ${fields.length}`,
    );
  }
  if (!isValidTimeZone(timeZone))
    throw new CronPatternError(pattern, timeZone, 'unknown time zone (use an IANA name such as UTC or Europe/Berlin)');
  let time: CronTime;
  try {
    time = new CronTime(source, 'UTC');
  } catch (error) {
    throw new CronPatternError(pattern, timeZone, (error as Error).message);
  }
  const units = time.toJSON();
  const nextWallAfter = (wallMs: number): number | undefined => {
    try {
      return time.getNextDateFrom(new Date(wallMs), 'UTC').toMillis();
    } catch {
      return undefined;
    }
  };
  if (nextWallAfter(Date.UTC(2000, 0, 1)) === undefined)
    throw new CronPatternError(pattern, timeZone, 'this pattern never fires');
  return { pattern: source, timeZone, hasSeconds: fields.length === 6, everyHour: units[2] === '*', nextWallAfter };
}

/** Like {@link compileCronPattern}, returning the reason instead of throwing. */
export function validateCronPattern(
  pattern: string,
  timeZone: string = DEFAULT_TIME_ZONE,
): { valid: true } | { valid: false; reason: string } {
  try {
    compileCronPattern(pattern, timeZone);
    return { valid: true };
  } catch (error) {
    return { valid: false, reason: (error as Error).message };
  }
}
