/** Answer of {@link FixedWindowRateLimiter.hit}: allowed, or refused with the seconds until the window ends. */
export type RateLimitDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

const ALLOWED: RateLimitDecision = Object.freeze({ allowed: true });

/** Options for {@link FixedWindowRateLimiter}. */
export interface RateLimiterOptions {
  /** Hits allowed per key and window. */
  readonly limit: number;
  /** Window length in ms (one minute for the gateway). */
  readonly windowMs: number;
  /** Most keys held at once; past it the least recently started window is forgotten. Default 100 000. */
  readonly maxKeys?: number;
}

interface Window {
  startedAt: number;
  count: number;
}

/**
 * In-memory fixed-window counter per key (the gateway uses `<provider>|<client IP>`).
 *
 * It is per process: with N gateway replicas behind a load balancer a client may get up to N times the limit.
 * That is acceptable for its purpose (stop one sender from flooding a replica); it is not a quota.
 *
 * Memory stays bounded without timers: windows that ended are swept at most once per window length, and at most
 * `maxKeys` windows are held (a `Map` keeps insertion order, and a key is re-inserted when its window restarts,
 * so the first entries are the oldest).
 */
export class FixedWindowRateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly maxKeys: number;
  private nextSweepAt = 0;

  constructor(private readonly options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be a positive integer');
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  /** Counts one hit for `key` at `nowMs` and says whether it is within the limit. */
  hit(key: string, nowMs: number): RateLimitDecision {
    if (nowMs >= this.nextSweepAt) this.sweep(nowMs);
    const window = this.windows.get(key);
    if (window === undefined || nowMs - window.startedAt >= this.options.windowMs) {
      this.start(key, nowMs);
      return ALLOWED;
    }
    if (window.count < this.options.limit) {
      window.count += 1;
      return ALLOWED;
    }
    return { allowed: false, retryAfterSeconds: this.retryAfterSeconds(key, nowMs) };
  }

  /**
   * True when `key` has used its whole window at `nowMs`, without counting a hit: lets a flood be refused before
   * its body is read or its signature checked.
   */
  isExhausted(key: string, nowMs: number): boolean {
    const window = this.windows.get(key);
    return (
      window !== undefined && nowMs - window.startedAt < this.options.windowMs && window.count >= this.options.limit
    );
  }

  /** Seconds until `key`'s window ends (at least 1). */
  retryAfterSeconds(key: string, nowMs: number): number {
    const window = this.windows.get(key);
    return window === undefined ? 1 : Math.max(1, Math.ceil((window.startedAt + this.options.windowMs - nowMs) / 1000));
  }

  /** Number of keys held (for tests and diagnostics). */
  get size(): number {
    return this.windows.size;
  }

  private start(key: string, nowMs: number): void {
    this.windows.delete(key);
    if (this.windows.size >= this.maxKeys) {
      const oldest = this.windows.keys().next();
      if (!oldest.done) this.windows.delete(oldest.value);
    }
    this.windows.set(key, { startedAt: nowMs, count: 1 });
  }

  /** Forgets every window that has ended; entries are oldest first, so it stops at the first live one. */
  private sweep(nowMs: number): void {
    for (const [key, window] of this.windows) {
      if (nowMs - window.startedAt < this.options.windowMs) break;
      this.windows.delete(key);
    }
    this.nextSweepAt = nowMs + this.options.windowMs;
  }
}
