import type { Clock } from '../clock';

interface PendingTimer {
  dueAt: number;
  order: number;
  callback: () => void;
}

/**
 * A {@link Clock} that moves only when a test tells it to, so the test skips time instead of waiting for it (as
 * Temporal's time-skipping test environment does): `advance(ms)` lets time pass, firing the timers that fall due in
 * order, each with the clocks at its own due time; `advanceAsync(ms)` does the same and lets what each timer starts
 * run up to its next wait before time moves on; `skip(ms, settled)` waits for a named event between timers;
 * `set(date)` lets time pass up to a wall-clock date; `stepWall(ms)` moves the wall clock alone (an NTP step, which
 * no lease or duration may be fooled by).
 */
export class ManualClock implements Clock {
  private wall: number;
  private mono = 0;
  private timers: PendingTimer[] = [];
  private created = 0;

  /** Starts the wall clock at `start` (epoch 0 when none is given) and the monotonic clock at 0. */
  constructor(start: Date | string | number = 0) {
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

  /**
   * Moves both clocks forward by `ms`, firing each timer that falls due (a timer set by one that fires included)
   * with the clocks at its due time.
   */
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
   * Lets `ms` pass like {@link advance}, and after each timer fires lets the work it started run up to its next
   * wait (one turn of the event loop) before time moves on, so a loop that re-arms its timer after an `await` sees
   * every tick that falls in `ms`.
   */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.mono + ms;
    for (let next = this.earliest(); next !== undefined && next.dueAt <= target; next = this.earliest()) {
      this.timers = this.timers.filter((pending) => pending !== next);
      this.move(next.dueAt - this.mono);
      next.callback();
      await new Promise<void>((resolve) => setImmediate(resolve));
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
