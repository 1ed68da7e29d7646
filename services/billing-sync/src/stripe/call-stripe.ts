import Stripe from 'stripe';
import { RetryLaterError, UnrecoverableError } from '@berth/messaging';

/** Stripe could not answer (down, 5xx, timeout, refused key): the attempt fails and is retried with backoff. */
export class StripeUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StripeUnavailableError';
  }
}

/** How long to wait after Stripe's rate limiter said no. */
const RATE_LIMIT_RETRY_MS = 2000;

/**
 * Calls Stripe and turns its errors into what the consumer transport understands:
 * - 429 → {@link RetryLaterError} (soon, outside the backoff schedule);
 * - 404 and other 4xx request errors → {@link UnrecoverableError}: asking again cannot help (the object is not in
 *   this account or mode); the event is set aside with one alert;
 * - anything else (connection, timeout, 5xx, 401/403 until the key is fixed) → {@link StripeUnavailableError},
 *   retried with backoff.
 */
export async function callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw classifyStripeError(what, error);
  }
}

function classifyStripeError(what: string, error: unknown): Error {
  if (!(error instanceof Stripe.errors.StripeError)) {
    return new StripeUnavailableError(`Stripe call failed (${what}): ${String((error as Error)?.message ?? error)}`, {
      cause: error,
    });
  }
  const status = error.statusCode;
  if (status === 429 || error.type === 'StripeRateLimitError') {
    return new RetryLaterError(`Stripe rate limit (${what})`, RATE_LIMIT_RETRY_MS, { cause: error });
  }
  if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 409) {
    return new UnrecoverableError(`Stripe refused ${what}: ${status} ${error.message}`, { cause: error });
  }
  return new StripeUnavailableError(`Stripe unavailable (${what}): ${status ?? error.type} ${error.message}`, {
    cause: error,
  });
}
