import { systemClock, toClock } from './index';

describe('toClock', () => {
  it('reads a bare () => Date as the wall clock beside the system monotonic clock and timers', async () => {
    const fixed = new Date('2030-01-01T00:00:00Z');
    const clock = toClock(() => fixed);
    expect(clock.now()).toBe(fixed);
    const before = clock.monotonic();
    await new Promise<void>((resolve) => clock.setTimer(1, resolve));
    expect(clock.monotonic()).toBeGreaterThanOrEqual(before);
  });

  it('passes a Clock through and gives the system clock when none is named', () => {
    expect(toClock(systemClock)).toBe(systemClock);
    expect(toClock(undefined)).toBe(systemClock);
  });
});
