/**
 * The two clocks the cron code reads. Every function and class of this library takes one, so tests move time by
 * hand instead of waiting for wall-clock minutes.
 */
export interface Clock {
  /** Wall-clock time: what cron patterns and tick times are about. */
  now(): Date;
  /**
   * A monotonic reading in milliseconds (any origin): what lease validity is measured with, so a wall-clock jump
   * (NTP step, manual change) never extends a lease. On Linux `performance.now()` keeps counting while the process
   * is stopped (SIGSTOP), which is what makes a paused leader notice, when it wakes, that its lease ran out.
   */
  monotonic(): number;
}

/** The process's real clocks: `new Date()` and `performance.now()`. */
export const systemClock: Clock = {
  now: () => new Date(),
  monotonic: () => performance.now(),
};

/**
 * A clock that only moves when told to, for tests: `advance(ms)` lets time pass, `set(date)` lets time pass up to a
 * wall-clock date, `stepWall(ms)` moves the wall clock alone (an NTP step, which no lease may be fooled by).
 */
export class ManualClock implements Clock {
  private wall: number;
  private mono = 0;

  constructor(start: Date | string | number) {
    this.wall = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.wall);
  }

  monotonic(): number {
    return this.mono;
  }

  /** Moves both clocks forward by `ms`. */
  advance(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }

  /** Lets time pass up to `date` (a date in the past moves nothing). */
  set(date: Date | string | number): void {
    const target = new Date(date).getTime();
    if (target > this.wall) this.advance(target - this.wall);
  }

  /** Moves the wall clock by `ms` (either way) without time passing on the monotonic clock. */
  stepWall(ms: number): void {
    this.wall += ms;
  }
}
