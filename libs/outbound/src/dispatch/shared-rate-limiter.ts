import type { JetStreamClient } from '@nats-io/jetstream';
import { BUCKETS } from '@berth/contract';
import {
  ensureKvBucket,
  RetryLaterError,
  ServerClock,
  takeKvRateStart,
  type KvRateDecision,
  type RateLimit,
} from '@berth/messaging';
import { createRateLimiter, SPACING_MARGIN, type RateLimiter } from './rate-limiter';

/** The KV bucket of the endpoints' rate windows, one entry per rate-limited endpoint (its id). */
export const OUTBOUND_RATES_BUCKET: string = BUCKETS.outboundRates;

/** A limiter that can be closed: its waiting callers are refused. */
export interface ClosableRateLimiter extends RateLimiter {
  /** Refuses the callers still waiting, and later ones, with a {@link RetryLaterError} of no delay. */
  close(): void;
}

/** Takes a start from an endpoint's shared window (a KV entry); see {@link takeKvRateStart}. */
export type TakeSharedStart = (key: string, limit: RateLimit) => Promise<KvRateDecision>;

/** Options for {@link createSharedRateLimiter}. */
export interface SharedRateLimiterOptions {
  /** The window's key (the endpoint's id). */
  key: string;
  ratePerSecond: number;
  take: TakeSharedStart;
}

/**
 * The window an endpoint's rate becomes: `limit` whole starts per `perMs`, `limit` the rate rounded down (at least 1)
 * and `perMs` stretched by {@link SPACING_MARGIN}, so a rate of 10/s is 10 starts per 1050 ms: arrivals jittered by
 * tens of milliseconds still fit 10 in any second a receiver counts.
 */
export function endpointRateWindow(ratePerSecond: number): RateLimit {
  const limit = Math.max(1, Math.floor(ratePerSecond));
  return { limit, perMs: ((limit * 1000) / ratePerSecond) * SPACING_MARGIN };
}

/**
 * An endpoint's rate limit exact across every dispatcher replica: a start is taken from the endpoint's window in
 * the KV bucket (`berth_outbound_rates`, a compare-and-set sliding log on the server's clock, see
 * {@link takeKvRateStart}), so N replicas together send at most the limit per window, whatever their wall clocks say, and when one stops or dies the others use its part at once
 * (no share to configure). In front of it, this replica paces its own callers evenly ({@link createRateLimiter} at
 * the full rate) and lets one at a time ask the window: a lone replica sends evenly spaced as before and never hits
 * the window, and a replica's waiting deliveries ask in order instead of racing each other. A caller refused waits
 * as long as the window told it (spread one interval after the previous refused caller of any replica) and asks
 * again: over the limit a delivery waits, it does not fail and is no attempt. {@link ClosableRateLimiter.close}
 * (its lane stops) refuses the waiting callers so their messages go back to the queue at once.
 */
export function createSharedRateLimiter(options: SharedRateLimiterOptions): ClosableRateLimiter {
  const window = endpointRateWindow(options.ratePerSecond);
  const pacer = createRateLimiter(options.ratePerSecond);
  const closing = new AbortController();
  let turn: Promise<unknown> = Promise.resolve();

  const refused = (): RetryLaterError =>
    new RetryLaterError(`The rate limiter of endpoint ${options.key} closed while the delivery waited`, 0);
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      closing.signal.addEventListener('abort', done, { once: true });
      function done(): void {
        clearTimeout(timer);
        closing.signal.removeEventListener('abort', done);
        resolve();
      }
    });
  const acquire = async (): Promise<void> => {
    if (closing.signal.aborted) throw refused();
    await pacer.take();
    for (;;) {
      if (closing.signal.aborted) throw refused();
      const decision = await options.take(options.key, window);
      if (decision.allowed) return;
      await sleep(decision.retryAfterMs);
    }
  };
  return {
    ratePerSecond: options.ratePerSecond,
    take() {
      const mine = turn.then(acquire, acquire);
      turn = mine.catch(() => undefined);
      return mine;
    },
    close() {
      closing.abort();
    },
  };
}

/** Options for {@link openEndpointRateWindows}. */
export interface EndpointRateWindowOptions {
  /** Default {@link OUTBOUND_RATES_BUCKET}. */
  bucket?: string;
  replicas?: number;
}

/**
 * Opens (creating it when absent) the bucket of the endpoints' rate windows and returns the function that takes a
 * start from one. Entries live an hour after their last change: a window is seconds long, a stale one is empty.
 */
export async function openEndpointRateWindows(
  js: JetStreamClient,
  options: EndpointRateWindowOptions = {},
): Promise<TakeSharedStart> {
  const kv = await ensureKvBucket(js, options.bucket ?? OUTBOUND_RATES_BUCKET, {
    history: 1,
    ttl: 60 * 60 * 1000,
    replicas: options.replicas ?? 1,
    description: "Rate windows of Berth's outbound endpoints: latest starts per endpoint",
  });
  // One reading of the server's clock for every endpoint's window: the entries' stamps keep it calibrated.
  const clock = new ServerClock();
  return (key, limit) => takeKvRateStart(kv, key, limit, clock);
}
