/**
 * Waiting on conditions in cross-service tests, where another process does the work and there is no event to
 * subscribe to: poll with a deadline, never sleep a fixed time.
 */

/** Options for {@link waitFor}. */
export interface WaitForOptions {
  /** What is waited for, for the error message. */
  what: string;
  timeoutMs: number;
  /** Pause between probes (default 100 ms: cheap enough for FerretDB on a loaded 2-core machine). */
  intervalMs?: number;
}

/**
 * Calls `probe` until `done(value)` holds and returns that value. A probe that throws (a server briefly away) is
 * retried. Past the deadline, rejects naming `what` with the last value seen (or the last probe error).
 */
export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  options: WaitForOptions,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let last: { value: T } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (done(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline) {
      const seen =
        last === undefined
          ? 'nothing'
          : 'value' in last
            ? JSON.stringify(last.value)
            : `error ${String((last.error as Error)?.message ?? last.error)}`;
      throw new Error(`Timed out after ${options.timeoutMs} ms waiting for ${options.what}; last seen: ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

/** Rejects after `timeoutMs` unless `promise` settles first. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `task` over `items` with at most `limit` running at once; results in input order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
