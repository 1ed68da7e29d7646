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
