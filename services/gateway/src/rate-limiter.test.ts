import { FixedWindowRateLimiter } from './rate-limiter';

describe('FixedWindowRateLimiter', () => {
  it('allows the limit per window and key, then tells how long to wait', () => {
    const limiter = new FixedWindowRateLimiter({ limit: 2, windowMs: 60_000 });
    expect(limiter.hit('a', 0)).toEqual({ allowed: true });
    expect(limiter.hit('a', 1_000)).toEqual({ allowed: true });
    expect(limiter.hit('a', 15_500)).toEqual({ allowed: false, retryAfterSeconds: 45 });
    expect(limiter.hit('b', 15_500)).toEqual({ allowed: true });
    expect(limiter.hit('a', 59_999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.hit('a', 60_000)).toEqual({ allowed: true });
  });

  it('forgets windows that ended, so idle clients cost no memory', () => {
    const limiter = new FixedWindowRateLimiter({ limit: 5, windowMs: 1_000 });
    for (let i = 0; i < 100; i += 1) limiter.hit(`client-${i}`, 0);
    expect(limiter.size).toBe(100);
    limiter.hit('late', 1_500);
    expect(limiter.size).toBe(1);
  });

  it('holds at most maxKeys windows, dropping the oldest', () => {
    const limiter = new FixedWindowRateLimiter({ limit: 1, windowMs: 60_000, maxKeys: 3 });
    ['a', 'b', 'c', 'd'].forEach((key, i) => limiter.hit(key, i));
    expect(limiter.size).toBe(3);
    expect(limiter.hit('a', 10).allowed).toBe(true); // 'a' was dropped, so it starts a new window
    expect(limiter.hit('d', 10).allowed).toBe(false);
  });
});
