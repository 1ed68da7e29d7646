/** How long to wait before attempt `n + 1`, after `n` failed attempts. */
export interface RetryPolicy {
  /** Attempts in all (first run included) before the message is treated as exhausted. */
  maxAttempts: number;
  /** Delay in ms before the next attempt, given how many attempts have failed (1 after the first failure). */
  delayAfter(failedAttempts: number): number;
}

/** Options for {@link exponentialBackoff}. */
export interface ExponentialBackoffOptions {
  maxAttempts: number;
  /** Delay after the first failure. */
  baseDelayMs: number;
  /** Upper bound for any one delay. */
  maxDelayMs?: number;
  /** 0 to 1: each delay is drawn in `[d·(1−jitter), d]`, so failures that happened together spread out. */
  jitter?: number;
  /** Random source in [0, 1); tests pass a fixed one. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter: `base · 2^(n−1)` after the n-th failure. With a 5 s base and 11 attempts the
 * ten waits add up to 85 minutes (5 + 10 + … + 2560 s), the seed's "10 retries over about 85 minutes".
 */
export function exponentialBackoff(options: ExponentialBackoffOptions): RetryPolicy {
  const jitter = Math.min(Math.max(options.jitter ?? 0, 0), 1);
  const random = options.random ?? Math.random;
  return {
    maxAttempts: options.maxAttempts,
    delayAfter(failedAttempts: number): number {
      const raw = options.baseDelayMs * 2 ** Math.max(0, failedAttempts - 1);
      const capped = Math.min(raw, options.maxDelayMs ?? Number.POSITIVE_INFINITY);
      return Math.round(capped * (1 - jitter * random()));
    },
  };
}

/** The webhook inbox schedule of seed 000: 11 attempts a round, waits of 5 s doubling to about 43 min. */
export const WEBHOOK_RETRY_POLICY: RetryPolicy = exponentialBackoff({
  maxAttempts: 11,
  baseDelayMs: 5000,
  jitter: 0.1,
});
