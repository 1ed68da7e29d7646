import { PermissionViolationError } from '@nats-io/nats-core';

/**
 * Thrown by a handler when retrying can never help (bad data, a permanent refusal): the message is copied to the
 * dead letters with this error and terminated at once, whatever attempts remain.
 */
export class UnrecoverableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnrecoverableError';
  }
}

/**
 * Thrown by a handler to be retried after a delay it knows (a `Retry-After`, a lock held elsewhere), instead of
 * the backoff schedule. Counts as an attempt.
 */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RetryLaterError';
  }
}

/** A short, loggable description of any thrown value. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * A handler's failure whose retry the handler already decided (`decideRetry`) and recorded (the inbox's
 * `nextAttemptAt`), so the transport naks with exactly that delay instead of drawing its own jitter. Its name says
 * what it is; its message is the original's description and the original is its `cause`. The consumer's
 * "Attempt n failed: …" line describes the original ({@link failureOf}).
 */
export class ScheduledRetryError extends RetryLaterError {
  constructor(original: unknown, delayMs: number) {
    super(describeError(original), delayMs, { cause: original });
    this.name = 'ScheduledRetryError';
  }

  /** The handler's own error (a getter, so loggers that walk `cause` do not serialise it twice). */
  get original(): unknown {
    return this.cause;
  }
}

/** The failure an error reports: a {@link ScheduledRetryError}'s original, any other error itself. */
export function failureOf(error: unknown): unknown {
  return error instanceof ScheduledRetryError ? error.original : error;
}

/**
 * Whether `error`, or an error it was caused by, is nats-server refusing a publish or subscription to this
 * connection's user (`Permissions Violation`, deploy/nats/auth.conf): a deployment error to surface, never a
 * transient failure to retry or to read as "not found".
 */
export function isPermissionViolation(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    if (cause instanceof PermissionViolationError || /permissions violation/i.test(cause.message)) return true;
  }
  return false;
}
