/**
 * Wraps an expensive read (a JetStream API call, a MongoDB query) so that scrapes within `ttlMs` of a successful
 * read reuse its result, and concurrent callers share one read in flight. A failed read is not cached: the next
 * call tries again.
 */
export function cachedRead<T>(read: () => Promise<T>, ttlMs: number, now: () => number = Date.now): () => Promise<T> {
  let cached: { value: T; at: number } | undefined;
  let inFlight: Promise<T> | undefined;
  return () => {
    if (cached && now() - cached.at < ttlMs) return Promise.resolve(cached.value);
    if (!inFlight) {
      inFlight = read().then(
        (value) => {
          cached = { value, at: now() };
          inFlight = undefined;
          return value;
        },
        (error: unknown) => {
          inFlight = undefined;
          throw error;
        },
      );
    }
    return inFlight;
  };
}
