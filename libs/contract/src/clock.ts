/**
 * The one clock Berth's libraries and services read time from, taken through their options (`clock`, default
 * {@link systemClock}), so a test fixes or moves time with a `ManualClock` (`@berth/contract/testing`) instead of
 * waiting: signature tolerance, leases, retries, retention, cron ticks and the timers of loops.
 */
export interface Clock {
  /** Wall-clock time: what is stored (`createdAt`, due times) and what cron patterns and signatures are about. */
  now(): Date;
  /**
   * A monotonic reading in milliseconds (any origin): what durations and lease validity are measured with, so a
   * wall-clock jump (NTP step, manual change) never stretches or shortens one. On Linux `performance.now()` keeps
   * counting while the process is stopped (SIGSTOP), which is what makes a paused leader notice, when it wakes, that
   * its lease ran out.
   */
  monotonic(): number;
  /** Calls `callback` once `ms` have passed on the monotonic clock; the returned function cancels it. */
  setTimer(ms: number, callback: () => void): () => void;
}

/** The process's real clocks and timers: `new Date()`, `performance.now()` and `setTimeout`. */
export const systemClock: Clock = {
  now: () => new Date(),
  monotonic: () => performance.now(),
  setTimer: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/** Resolves once `ms` have passed on `clock` (a manual clock resolves it when a test lets that time pass). */
export function clockDelay(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve));
}
