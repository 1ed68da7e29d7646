/**
 * The one clock of `@berth/jobs`: wall time (epoch ms) for what is stored (`addedAt`, `cancelledAt`, due times),
 * a monotonic reading for durations, and timers. Every driver, store and loop of the library takes one through its
 * options (`clock`), so a test moves time with a `ManualJobClock` (`@berth/jobs/testing`) instead of waiting.
 */
export interface JobClock {
  /** Wall-clock time, epoch ms. */
  now(): number;
  /** A monotonic reading in ms (any origin), never moved by a wall-clock step. */
  monotonic(): number;
  /** Calls `callback` once `ms` have passed; the returned function cancels it. */
  setTimer(ms: number, callback: () => void): () => void;
}

/** The process's clocks and timers: `Date.now()`, `performance.now()` and `setTimeout`. */
export const systemJobClock: JobClock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/** The clock's wall time as an ISO 8601 string. */
export function isoNow(clock: JobClock): string {
  return new Date(clock.now()).toISOString();
}
