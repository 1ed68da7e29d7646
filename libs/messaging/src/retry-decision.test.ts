import { exponentialBackoff, type RetryPolicy } from './backoff';
import { describeError, failureOf, RetryLaterError, ScheduledRetryError, UnrecoverableError } from './errors';
import { decideRetry } from './retry-decision';

describe('decideRetry', () => {
  const delays: number[] = [];
  const policy: RetryPolicy = {
    maxAttempts: 3,
    delayAfter: (failed) => {
      delays.push(failed);
      return 1000 * failed;
    },
  };
  beforeEach(() => (delays.length = 0));

  it("retries after the policy's delay for the attempt that failed, until the last attempt", () => {
    expect(decideRetry(policy, { attempt: 1, error: new Error('boom') })).toEqual({ kind: 'retry', delayMs: 1000 });
    expect(decideRetry(policy, { attempt: 2, error: new Error('boom') })).toEqual({ kind: 'retry', delayMs: 2000 });
    expect(decideRetry(policy, { attempt: 3, error: new Error('boom') })).toEqual({
      kind: 'give-up',
      reason: 'exhausted',
    });
    expect(decideRetry(policy, { attempt: 7 })).toEqual({ kind: 'give-up', reason: 'exhausted' });
    expect(delays).toEqual([1, 2]);
  });

  it('gives up at once on an UnrecoverableError, whatever attempts remain', () => {
    expect(decideRetry(policy, { attempt: 1, error: new UnrecoverableError('bad data') })).toEqual({
      kind: 'give-up',
      reason: 'unrecoverable',
    });
    expect(delays).toEqual([]);
  });

  it("takes a RetryLaterError's delay instead of the backoff, but not past the last attempt", () => {
    expect(decideRetry(policy, { attempt: 2, error: new RetryLaterError('busy', 123) })).toEqual({
      kind: 'retry',
      delayMs: 123,
    });
    expect(decideRetry(policy, { attempt: 3, error: new RetryLaterError('busy', 123) })).toEqual({
      kind: 'give-up',
      reason: 'exhausted',
    });
    expect(delays).toEqual([]);
  });

  it('waits at least minDelayMs (a Retry-After longer than the backoff)', () => {
    expect(decideRetry(policy, { attempt: 1, minDelayMs: 5000 })).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(decideRetry(policy, { attempt: 2, minDelayMs: 500 })).toEqual({ kind: 'retry', delayMs: 2000 });
  });

  it('draws the jitter of a jittered policy once per retry', () => {
    let draws = 0;
    const jittered = exponentialBackoff({
      maxAttempts: 2,
      baseDelayMs: 1000,
      jitter: 0.5,
      random: () => (draws++, 1 / 2),
    });
    expect(decideRetry(jittered, { attempt: 1, error: new Error('x') })).toEqual({ kind: 'retry', delayMs: 750 });
    expect(decideRetry(jittered, { attempt: 2, error: new Error('x') })).toEqual({
      kind: 'give-up',
      reason: 'exhausted',
    });
    expect(draws).toBe(1);
  });
});

describe('ScheduledRetryError', () => {
  it('says what it is, carries the original as its message and cause, and reports the original', () => {
    const original = new TypeError('Stripe 503');
    const error = new ScheduledRetryError(original, 2000);
    expect(error).toBeInstanceOf(RetryLaterError);
    expect(error).toMatchObject({ name: 'ScheduledRetryError', message: 'TypeError: Stripe 503', delayMs: 2000 });
    expect(error.cause).toBe(original);
    expect(error.original).toBe(original);
    expect(describeError(error)).toBe('ScheduledRetryError: TypeError: Stripe 503');
    expect(failureOf(error)).toBe(original);
    expect(failureOf(original)).toBe(original);
    expect(decideRetry({ maxAttempts: 5, delayAfter: () => 1 }, { attempt: 1, error })).toEqual({
      kind: 'retry',
      delayMs: 2000,
    });
  });
});
