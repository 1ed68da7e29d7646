/**
 * The clocks and the timer the cron code reads. Every function and class of this library takes one, so tests move
 * time by hand instead of waiting for wall-clock minutes, and a {@link ManualClock} fires the timers of the lease
 * rounds and the tick loop when a test lets time pass (as Temporal's time-skipping test environment does).
 * More than `@berth/contract`'s `Clock` (a plain `() => Date`): leases need a monotonic reading and timers.
 */
export interface CronClock {
  /** Wall-clock time: what cron patterns and tick times are about. */
  now(): Date;
  /**
   * A monotonic reading in milliseconds (any origin): what lease validity is measured with, so a wall-clock jump
   * (NTP step, manual change) never extends a lease. On Linux `performance.now()` keeps counting while the process
   * is stopped (SIGSTOP), which is what makes a paused leader notice, when it wakes, that its lease ran out.
   */
  monotonic(): number;
  /** Calls `callback` once `ms` have passed on the monotonic clock; the returned function cancels it. */
  setTimer(ms: number, callback: () => void): () => void;
}

/** The process's real clocks and timers: `new Date()`, `performance.now()` and `setTimeout`. */
export const systemClock: CronClock = {
  now: () => new Date(),
  monotonic: () => performance.now(),
  setTimer: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

interface PendingTimer {
  dueAt: number;
  order: number;
  callback: () => void;
}

/**
 * A clock that only moves when told to, for tests: `advance(ms)` lets time pass (firing the timers that fall due,
 * in order, each at its own time), `set(date)` lets time pass up to a wall-clock date, `stepWall(ms)` moves the
 * wall clock alone (an NTP step, which no lease may be fooled by).
 */
export class ManualClock implements CronClock {
  private wall: number;
  private mono = 0;
  private timers: PendingTimer[] = [];
  private created = 0;

  constructor(start: Date | string | number) {
    this.wall = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.wall);
  }

  monotonic(): number {
    return this.mono;
  }

  setTimer(ms: number, callback: () => void): () => void {
    const timer: PendingTimer = { dueAt: this.mono + Math.max(0, ms), order: this.created++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((pending) => pending !== timer);
    };
  }

  /** How many timers wait for time to pass. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Milliseconds until the earliest pending timer is due (undefined when none waits). */
  nextTimerInMs(): number | undefined {
    const next = this.earliest();
    return next === undefined ? undefined : next.dueAt - this.mono;
  }

  /** Moves both clocks forward by `ms`, firing each timer that falls due with the clocks at its due time. */
  advance(ms: number): void {
    const target = this.mono + ms;
    for (let next = this.earliest(); next !== undefined && next.dueAt <= target; next = this.earliest()) {
      this.timers = this.timers.filter((pending) => pending !== next);
      this.move(next.dueAt - this.mono);
      next.callback();
    }
    this.move(target - this.mono);
  }

  /**
   * Lets `ms` pass one timer at a time, as Temporal's time-skipping test server skips to the next timer once the
   * work is idle: before firing each timer that falls due it calls `settled()`, and waits for that promise (the
   * event that says the work the timer starts is done, which may set the next timer) before moving on.
   */
  async skip(ms: number, settled: () => Promise<unknown>): Promise<void> {
    const target = this.mono + ms;
    for (let next = this.earliest(); next !== undefined && next.dueAt <= target; next = this.earliest()) {
      const done = settled();
      this.advance(next.dueAt - this.mono);
      await done;
    }
    this.advance(target - this.mono);
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

  private move(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }

  private earliest(): PendingTimer | undefined {
    let earliest: PendingTimer | undefined;
    for (const timer of this.timers)
      if (!earliest || timer.dueAt < earliest.dueAt || (timer.dueAt === earliest.dueAt && timer.order < earliest.order))
        earliest = timer;
    return earliest;
  }
}
