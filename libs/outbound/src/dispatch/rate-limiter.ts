/** Paces calls to at most `ratePerSecond`, evenly spaced. */
export interface RateLimiter {
  /** Resolves when the caller may send; callers are served in call order. */
  take(): Promise<void>;
  readonly ratePerSecond: number;
}

/**
 * A rate limiter with a burst of one: each caller reserves the next free slot, `1000 / ratePerSecond` ms after the
 * previous one, and waits for it. Any one-second window then holds at most `ratePerSecond` sends (rounded up), which
 * is what a receiver counting per second sees, unlike a bucket refilled per second that allows two bursts back to
 * back. Waiting callers hold only their own endpoint's slots (each endpoint has its own limiter).
 */
export function createRateLimiter(ratePerSecond: number, now: () => number = () => performance.now()): RateLimiter {
  const intervalMs = 1000 / ratePerSecond;
  let nextSlot = 0;
  return {
    ratePerSecond,
    async take() {
      const current = now();
      const slot = Math.max(current, nextSlot);
      nextSlot = slot + intervalMs;
      const waitMs = slot - current;
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    },
  };
}
