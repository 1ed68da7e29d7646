/** Options for {@link waitFor}. */
export interface WaitForOptions {
  /** What is waited for, for the error message. */
  what: string;
  /** 10 000 ms by default. */
  timeoutMs?: number;
  /** Pause between checks; 25 ms by default (a cross-service test polling FerretDB wants 100). */
  intervalMs?: number;
}

/**
 * Calls `check` until it returns a truthy value, or one `options.until` accepts, and returns that value: for a state
 * that no event announces (a row another process writes, a stream's counters). A check that throws (a server briefly away) is tried again.
 * Past the deadline, rejects naming `what` with the last value or error seen. Where the code under test emits an
 * event, wait on it with {@link waitForEvent} instead.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: WaitForOptions & { until: (value: T) => boolean },
): Promise<T>;
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitForOptions): Promise<NonNullable<T>>;
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: WaitForOptions & { until?: (value: T) => boolean },
): Promise<T> {
  const done = options.until ?? ((value: T): boolean => Boolean(value));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  let last: { value: T } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await check();
      if (done(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() >= deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${options.what}; last seen: ${describe(last)}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}

function describe(last: { value: unknown } | { error: unknown } | undefined): string {
  if (last === undefined) return 'nothing';
  if ('value' in last) return JSON.stringify(last.value) ?? String(last.value);
  return `error ${String((last.error as Error)?.message ?? last.error)}`;
}
