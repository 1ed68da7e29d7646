import { nextRetryDelayMs, SVIX_RETRY_SCHEDULE_MS } from './retry-schedule';

describe('nextRetryDelayMs', () => {
  const exact = { jitter: 0 };

  it('follows the Svix schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after attempts 1 to 7, then gives up', () => {
    expect(SVIX_RETRY_SCHEDULE_MS).toHaveLength(8);
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => nextRetryDelayMs(attempt, exact));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(nextRetryDelayMs(8, exact)).toBeUndefined();
  });

  it('spreads each delay by ±20 % by default', () => {
    expect(nextRetryDelayMs(1, { random: () => 0 })).toBe(4_000);
    expect(nextRetryDelayMs(1, { random: () => 0.5 })).toBe(5_000);
    expect(nextRetryDelayMs(1, { random: () => 0.999999 })).toBe(6_000);
    const samples = Array.from({ length: 200 }, () => nextRetryDelayMs(2)!);
    expect(Math.min(...samples)).toBeGreaterThanOrEqual(240_000);
    expect(Math.max(...samples)).toBeLessThanOrEqual(360_000);
  });

  it('takes another schedule and jitter', () => {
    expect(nextRetryDelayMs(1, { schedule: [0, 100], jitter: 0.5, random: () => 0 })).toBe(50);
    expect(nextRetryDelayMs(2, { schedule: [0, 100] })).toBeUndefined();
  });

  it('refuses attempts that are not positive integers and jitter outside [0, 1]', () => {
    expect(() => nextRetryDelayMs(0)).toThrow(RangeError);
    expect(() => nextRetryDelayMs(1.5)).toThrow(RangeError);
    expect(() => nextRetryDelayMs(1, { jitter: 2 })).toThrow(RangeError);
  });
});
