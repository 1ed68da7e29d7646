import { createRateLimiter } from './rate-limiter';

describe('createRateLimiter', () => {
  it('spaces callers evenly, just under the rate, in call order', async () => {
    const limiter = createRateLimiter(50);
    const started = performance.now();
    const times: number[] = [];
    await Promise.all(Array.from({ length: 11 }, (_, index) => limiter.take().then(() => times.push(index))));
    const elapsed = performance.now() - started;
    expect(times).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Ten gaps of 20 ms · 1.05.
    expect(elapsed).toBeGreaterThanOrEqual(205);
    expect(elapsed).toBeLessThan(400);
  });
});
