import { RetryLaterError, takeStart, type RateLimit, type RateWindow } from '@berth/messaging';
import { createSharedRateLimiter, endpointRateWindow, type TakeSharedStart } from './shared-rate-limiter';

/** The window of one process, kept in memory: the same decision the KV entry gets, without NATS. */
function inMemoryWindows(): { take: TakeSharedStart; windows: Map<string, RateWindow> } {
  const windows = new Map<string, RateWindow>();
  const take: TakeSharedStart = (key: string, limit: RateLimit) => {
    const now = Date.now();
    const decision = takeStart(windows.get(key) ?? { starts: [], nextReserved: 0 }, limit, now);
    windows.set(key, decision.window);
    return Promise.resolve(
      decision.allowed ? { allowed: true } : { allowed: false, retryAfterMs: decision.retryAt - now },
    );
  };
  return { take, windows };
}

describe('endpointRateWindow', () => {
  it('is the rate in whole starts per a window stretched 5 %', () => {
    expect(endpointRateWindow(10)).toEqual({ limit: 10, perMs: 1050 });
    expect(endpointRateWindow(2.5)).toEqual({ limit: 2, perMs: 840 });
    expect(endpointRateWindow(0.5)).toEqual({ limit: 1, perMs: 2100 });
  });
});

describe('createSharedRateLimiter', () => {
  it('lets callers through in order, each start recorded in the shared window', async () => {
    const { take, windows } = inMemoryWindows();
    const limiter = createSharedRateLimiter({ key: 'ep_1', ratePerSecond: 100, take });
    const order: number[] = [];
    await Promise.all(Array.from({ length: 5 }, (_, index) => limiter.take().then(() => order.push(index))));
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(windows.get('ep_1')?.starts).toHaveLength(5);
  });

  it('waits while another replica holds the window, and refuses the waiting callers once closed', async () => {
    const { take, windows } = inMemoryWindows();
    // Another replica took the window's one start a moment ago: this one must wait about 2 s for it.
    windows.set('ep_2', { starts: [Date.now()], nextReserved: 0 });
    const limiter = createSharedRateLimiter({ key: 'ep_2', ratePerSecond: 0.5, take });
    const waiting = [limiter.take(), limiter.take()];
    limiter.close();
    for (const result of await Promise.allSettled(waiting)) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(RetryLaterError);
      expect(((result as PromiseRejectedResult).reason as RetryLaterError).delayMs).toBe(0);
    }
    expect(windows.get('ep_2')?.starts).toHaveLength(1);
  });
});
