import { systemClock, type Clock } from '../clock';

/**
 * The system clock with its wall reading moved by an offset the test raises (`advance(ms)`): for tests against real
 * servers and processes, where time keeps passing and the timers must be real, but a decision taken on the wall
 * clock (a lease, a retry's due time, an endpoint failing for days) is to see hours or days go by at once. Its
 * monotonic reading and timers are the system's, so nothing waits the offset.
 */
export class ShiftedClock implements Clock {
  constructor(private offsetMs = 0) {}

  now(): Date {
    return new Date(systemClock.now().getTime() + this.offsetMs);
  }

  monotonic(): number {
    return systemClock.monotonic();
  }

  setTimer(ms: number, callback: () => void): () => void {
    return systemClock.setTimer(ms, callback);
  }

  /** Moves the wall reading forward by `ms`. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
