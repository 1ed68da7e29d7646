import { EventEmitter, once } from 'node:events';
import { ManualClock } from './index';

describe('ManualClock timers', () => {
  it('fires each timer that falls due, in order, with the clocks at its due time; a cancelled one never', () => {
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const fired: Array<[string, number, string]> = [];
    const record = (name: string) => () => fired.push([name, clock.monotonic(), clock.now().toISOString()]);
    clock.setTimer(300, record('b'));
    clock.setTimer(100, record('a'));
    const cancel = clock.setTimer(200, record('cancelled'));
    clock.setTimer(300, record('c'));
    cancel();
    expect(clock.pendingTimers).toBe(3);
    expect(clock.nextTimerInMs()).toBe(100);
    clock.advance(250);
    expect(fired).toEqual([['a', 100, '2025-01-01T00:00:00.100Z']]);
    clock.advance(50);
    expect(fired.map(([name]) => name)).toEqual(['a', 'b', 'c']);
    expect(clock.monotonic()).toBe(300);
    expect(clock.nextTimerInMs()).toBeUndefined();
  });

  it('fires a timer set by a timer within the same advance', () => {
    const clock = new ManualClock(0);
    const ticks: number[] = [];
    const every100 = (): void => {
      ticks.push(clock.monotonic());
      clock.setTimer(100, every100);
    };
    clock.setTimer(100, every100);
    clock.advance(350);
    expect(ticks).toEqual([100, 200, 300]);
  });

  it('skip() lets the work each timer starts finish before the next, as a lease round re-arms its timer when done', async () => {
    const clock = new ManualClock(0);
    const events = new EventEmitter();
    const rounds: number[] = [];
    const round = (): void => {
      void Promise.resolve().then(() => {
        rounds.push(clock.monotonic());
        clock.setTimer(100, round);
        events.emit('round');
      });
    };
    clock.setTimer(100, round);
    await clock.skip(350, () => once(events, 'round'));
    expect(rounds).toEqual([100, 200, 300]);
    expect(clock.monotonic()).toBe(350);
    expect(clock.nextTimerInMs()).toBe(50);
  });
});
