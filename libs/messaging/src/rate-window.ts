/** A rate limit: at most `limit` starts (of a job, of a delivery to an endpoint…) in any `perMs` window. */
export interface RateLimit {
  limit: number;
  perMs: number;
}

/** The state one rate limit keeps: the latest starts (at most `limit`) and the next time handed to a waiting caller. */
export interface RateWindow {
  starts: number[];
  /** Epoch ms from which the next waiting caller is told to come back (spreads waiting callers one interval apart). */
  nextReserved: number;
}

/** What {@link takeStart} decided. */
export type RateDecision =
  { allowed: true; window: RateWindow } | { allowed: false; retryAt: number; window: RateWindow };

/**
 * A sliding log: a start at `now` is allowed when fewer than `limit` starts happened in the last `perMs`, that is
 * when the `limit`-th latest start is at least `perMs` old; then every window of `perMs` holds at most `limit`
 * starts, exactly. A refused caller is given a time to come back: the earliest moment a start frees, or later, one
 * interval (`perMs / limit`) after the previous refused caller's, so waiting callers return spread out in order
 * instead of all at once. Coming back, it is checked again like any start. Shared by the jobs' rate limits and the
 * dispatcher's per-endpoint limits, through {@link takeKvRateStart}.
 */
export function takeStart(window: RateWindow, limit: RateLimit, now: number): RateDecision {
  const starts = window.starts.filter((at) => at > now - limit.perMs).slice(-limit.limit);
  if (starts.length < limit.limit) {
    return { allowed: true, window: { starts: [...starts, now], nextReserved: window.nextReserved } };
  }
  const freesAt = starts[0] + limit.perMs;
  const retryAt = Math.max(freesAt, window.nextReserved);
  return { allowed: false, retryAt, window: { starts, nextReserved: retryAt + limit.perMs / limit.limit } };
}
