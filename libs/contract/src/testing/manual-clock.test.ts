import { EventEmitter, once } from 'node:events';
import { ManualClock, ShiftedClock } from './index';

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

  it('advanceAsync() lets a loop that re-arms its timer after an await see every tick that falls due', async () => {
    const clock = new ManualClock();
    const ticks: number[] = [];
    const loop = async (): Promise<void> => {
      await Promise.resolve();
      ticks.push(clock.monotonic());
      clock.setTimer(100, () => void loop());
    };
    clock.setTimer(100, () => void loop());
    await clock.advanceAsync(350);
    expect(ticks).toEqual([100, 200, 300]);
    expect(clock.now().getTime()).toBe(350);
  });

  it('set() lets time pass up to a date and stepWall() moves the wall clock alone', () => {
    const clock = new ManualClock('2025-01-01T00:00:00Z');
    const fired: string[] = [];
    clock.setTimer(60_000, () => fired.push(clock.now().toISOString()));
    clock.set('2025-01-01T00:02:00Z');
    expect(fired).toEqual(['2025-01-01T00:01:00.000Z']);
    clock.stepWall(-3_600_000);
    expect(clock.now().toISOString()).toBe('2024-12-31T23:02:00.000Z');
    expect(clock.monotonic()).toBe(120_000);
    clock.set('2024-12-31T23:00:00Z');
    expect(clock.monotonic()).toBe(120_000);
  });
});

describe('ShiftedClock', () => {
  it('reads the system wall clock moved by the offset it is advanced by', () => {
    const clock = new ShiftedClock(60_000);
    expect(Math.abs(clock.now().getTime() - (Date.now() + 60_000))).toBeLessThan(1000);
    clock.advance(24 * 60 * 60_000);
    expect(Math.abs(clock.now().getTime() - (Date.now() + 60_000 + 24 * 60 * 60_000))).toBeLessThan(1000);
  });
});
