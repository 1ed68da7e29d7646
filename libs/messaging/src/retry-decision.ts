import type { RetryPolicy } from './backoff';
import { RetryLaterError, UnrecoverableError } from './errors';

/** Why a failed message is given up on: retrying can never help, or the policy's last attempt failed. */
export type GiveUpReason = 'unrecoverable' | 'exhausted';

/**
 * What becomes of a message after an attempt failed: tried again after `delayMs`, or given up on for `reason`.
 * BullMQ's `shouldRetryJob`, Temporal's `ApplicationFailure { nonRetryable, nextRetryDelay }` and trigger.dev's
 * `RetryOutcome` are the same idea.
 */
export type RetryDecision = { kind: 'retry'; delayMs: number } | { kind: 'give-up'; reason: GiveUpReason };

/** The failed attempt {@link decideRetry} decides on. */
export interface FailedAttempt {
  /** The attempt that failed, counted from 1 (the first run included). */
  attempt: number;
  /** What the attempt threw, if anything: an `UnrecoverableError` gives up, a `RetryLaterError` sets the delay. */
  error?: unknown;
  /** The least delay the retry may have (a receiver's `Retry-After`), when longer than the policy's. */
  minDelayMs?: number;
}

/**
 * The one retry decision of every consumer (the messaging runner, the inbox, the job queues and their in-process
 * driver, the outbound dispatcher): an `UnrecoverableError` gives up at once (`unrecoverable`); an attempt that
 * reached the policy's `maxAttempts` gives up (`exhausted`), even one that asked to be retried later; anything else
 * is retried after the `RetryLaterError`'s delay or else the policy's backoff, at least `minDelayMs`.
 *
 * The policy's `delayAfter` is called only for a retry, so a jittered policy draws exactly one random number per
 * retry. Callers that record the delay (the inbox's `nextAttemptAt`) decide once and pass the delay on in a
 * `ScheduledRetryError`, so the transport does not draw another.
 */
export function decideRetry(policy: RetryPolicy, failed: FailedAttempt): RetryDecision {
  if (failed.error instanceof UnrecoverableError) return { kind: 'give-up', reason: 'unrecoverable' };
  if (failed.attempt >= policy.maxAttempts) return { kind: 'give-up', reason: 'exhausted' };
  const delayMs = failed.error instanceof RetryLaterError ? failed.error.delayMs : policy.delayAfter(failed.attempt);
  return { kind: 'retry', delayMs: failed.minDelayMs === undefined ? delayMs : Math.max(delayMs, failed.minDelayMs) };
}
