/** Paces calls to at most `ratePerSecond`, evenly spaced. */
export interface RateLimiter {
  /** Resolves when the caller may send; callers are served in call order. */
  take(): Promise<void>;
  readonly ratePerSecond: number;
}

/**
 * Spacing between sends, as a share of `1000 / rate`: 5 % more, because what a receiver counts is arrivals, and a
 * request that took a few milliseconds longer than the next one (a new connection) would otherwise put one send
 * too many into some one-second window.
 */
export const SPACING_MARGIN = 1.05;

/**
 * A rate limiter with a burst of one: callers are released one at a time, each a little more than
 * `1000 / ratePerSecond` ms after the previous one was actually released (a timer that fired late pushes the next
 * release back rather than letting two go close together). Any one-second window then holds at most
 * `ratePerSecond` arrivals, which is what a receiver counting per second sees, unlike a bucket refilled per second
 * that allows two bursts back to back. Waiting callers hold only their own endpoint's slots (each endpoint has its
 * own limiter).
 */
export function createRateLimiter(ratePerSecond: number, now: () => number = () => performance.now()): RateLimiter {
  const intervalMs = (1000 / ratePerSecond) * SPACING_MARGIN;
  let lastRelease = Number.NEGATIVE_INFINITY;
  let queue: Promise<void> = Promise.resolve();
  const releaseNext = async (): Promise<void> => {
    for (let waitMs = lastRelease + intervalMs - now(); waitMs > 0; waitMs = lastRelease + intervalMs - now()) {
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    lastRelease = now();
  };
  return {
    ratePerSecond,
    take() {
      queue = queue.then(releaseNext);
      return queue;
    },
  };
}
