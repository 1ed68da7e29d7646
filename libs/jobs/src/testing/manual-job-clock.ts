import type { JobClock } from '../clock';

interface PendingTimer {
  dueAt: number;
  order: number;
  callback: () => void;
}

/**
 * A {@link JobClock} that moves only when told: `advance(ms)` lets time pass, firing the timers that fall due in
 * order, each at its own time, and awaiting what they start between them.
 */
export class ManualJobClock implements JobClock {
  private wall: number;
  private mono = 0;
  private timers: PendingTimer[] = [];
  private created = 0;

  constructor(start: Date | string | number = 0) {
    this.wall = new Date(start).getTime();
  }

  now(): number {
    return this.wall;
  }

  monotonic(): number {
    return this.mono;
  }

  setTimer(ms: number, callback: () => void): () => void {
    const timer = { dueAt: this.mono + Math.max(0, ms), order: this.created++, callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((pending) => pending !== timer);
    };
  }

  /** Timers not yet fired. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Lets `ms` pass, firing every timer that falls due on the way (a timer set by one that fires included). */
  async advance(ms: number): Promise<void> {
    const until = this.mono + ms;
    for (;;) {
      const next = [...this.timers]
        .filter((timer) => timer.dueAt <= until)
        .sort((a, b) => a.dueAt - b.dueAt || a.order - b.order)[0];
      if (!next) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.wall += next.dueAt - this.mono;
      this.mono = next.dueAt;
      next.callback();
      // Let what the timer started run up to its next wait before time moves on.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.wall += until - this.mono;
    this.mono = until;
  }
}
