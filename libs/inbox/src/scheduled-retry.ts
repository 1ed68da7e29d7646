import { RetryLaterError, UnrecoverableError, type RetryPolicy } from '@berth/messaging';

/** What becomes of a message after its handler failed, as the consumer's transport will decide it. */
export type NextAttempt =
  /** `UnrecoverableError`: terminated at once, the event set aside. */
  | { kind: 'abandon' }
  /** The retry policy's last attempt failed: the transport terminates the message; the round is over. */
  | { kind: 'round-ended' }
  /** JetStream redelivers the message after `delayMs`. */
  | { kind: 'retry'; delayMs: number }
  /** No retry policy given: the inbox cannot tell (the retry state is left as it was). */
  | { kind: 'unknown' };

/**
 * Mirrors the consumer runner's decision for a failed delivery (`startConsumer` in `@berth/messaging`): an
 * `UnrecoverableError` gives up at once; a delivery whose count reached the policy's `maxAttempts` gives up
 * (exhausted); anything else is naked with the `RetryLaterError`'s delay or the policy's backoff. Deciding the delay
 * here, once, is what lets the inbox record when the retry is due: the runner would draw its own jitter otherwise.
 */
export function planNextAttempt(error: unknown, deliveryCount: number, policy: RetryPolicy | undefined): NextAttempt {
  if (error instanceof UnrecoverableError) return { kind: 'abandon' };
  if (!policy) return { kind: 'unknown' };
  if (deliveryCount >= policy.maxAttempts) return { kind: 'round-ended' };
  return {
    kind: 'retry',
    delayMs: error instanceof RetryLaterError ? error.delayMs : policy.delayAfter(deliveryCount),
  };
}

/**
 * A handler's failure, carrying the retry delay the inbox chose and recorded (`nextAttemptAt`), so the transport
 * naks with exactly that delay. It reads as the original error: same `name`, `message` and `stack` (the consumer's
 * "Attempt n failed: <name>: <message>" log line does not change), and the original is its `cause`.
 */
export class ScheduledRetryError extends RetryLaterError {
  constructor(
    readonly original: unknown,
    delayMs: number,
  ) {
    super(original instanceof Error ? original.message : String(original), delayMs, { cause: original });
    this.name = original instanceof Error ? original.name : 'Error';
    if (original instanceof Error && original.stack) this.stack = original.stack;
  }
}
