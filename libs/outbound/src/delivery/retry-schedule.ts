import { decideRetry, type RetryPolicy } from '@berth/messaging';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Svix's delivery schedule, the one receivers of Standard Webhooks expect: an attempt at once, then after 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, about 27.6 hours over 8 attempts. Entry `i` is the delay before attempt
 * `i + 1`.
 */
export const SVIX_RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
]);

/** Default spread of {@link nextRetryDelayMs}: ±20 %, so endpoints that failed together do not retry together. */
export const DEFAULT_RETRY_JITTER = 0.2;

/** Options of {@link nextRetryDelayMs}. */
export interface NextRetryDelayOptions {
  /** Delays before each attempt, the first being the initial one; {@link SVIX_RETRY_SCHEDULE_MS} by default. */
  schedule?: readonly number[];
  /** Fraction of the delay added or removed at random, 0 to 1. */
  jitter?: number;
  /** Uniform random number in [0, 1); injectable for tests. */
  random?: () => number;
}

/**
 * The schedule as a retry policy for `decideRetry`: `schedule.length` attempts, the delay after attempt `n` being
 * entry `n` spread by the jitter.
 *
 * @throws RangeError for a jitter outside [0, 1].
 */
export function retrySchedulePolicy(options: NextRetryDelayOptions = {}): RetryPolicy {
  const { schedule = SVIX_RETRY_SCHEDULE_MS, jitter = DEFAULT_RETRY_JITTER, random = Math.random } = options;
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`jitter must be between 0 and 1, got ${jitter}`);
  return {
    maxAttempts: schedule.length,
    delayAfter: (attempt) => Math.max(0, Math.round(schedule[attempt] * (1 + jitter * (2 * random() - 1)))),
  };
}

/**
 * How long to wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed, with jitter; or
 * undefined when the schedule has no more attempts and the message should be given up (dead-lettered).
 *
 * @throws RangeError for an attempt that is not a positive integer or a jitter outside [0, 1].
 */
export function nextRetryDelayMs(attempt: number, options: NextRetryDelayOptions = {}): number | undefined {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  const decision = decideRetry(retrySchedulePolicy(options), { attempt });
  return decision.kind === 'retry' ? decision.delayMs : undefined;
}
