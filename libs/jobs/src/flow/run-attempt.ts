import { JobTimeoutError } from '../errors';

/** What may stop one attempt early. */
export interface AttemptLimits {
  /** Deadline of the attempt, in ms: the signal fires with a `JobTimeoutError` at it. */
  timeoutMs?: number;
  /**
   * Subscribes to an outside abort (a cancellation): calls `abort(reason)` when it comes, returns the unsubscribe.
   * Called once, before the task starts.
   */
  watch?: (abort: (reason: Error) => void) => () => void;
}

/**
 * Runs one attempt with an `AbortSignal` that fires at its deadline or on an outside abort, and settles the attempt
 * at that moment: the returned promise rejects with the signal's reason even if the task ignores the signal (its
 * late result or error is dropped). A JavaScript function can't be killed, so a task that ignores its signal keeps
 * running in the background; what the worker guarantees is that the job's message is settled on time.
 */
export async function runAttempt(task: (signal: AbortSignal) => Promise<void>, limits: AttemptLimits): Promise<void> {
  const controller = new AbortController();
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  const abort = (reason: Error): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const timer =
    limits.timeoutMs !== undefined
      ? setTimeout(() => abort(new JobTimeoutError(limits.timeoutMs as number)), limits.timeoutMs)
      : undefined;
  const unwatch = limits.watch?.(abort);
  try {
    const running = Promise.resolve().then(() => task(controller.signal));
    running.catch(() => undefined);
    await Promise.race([running, aborted]);
    if (controller.signal.aborted) throw controller.signal.reason;
  } finally {
    if (timer) clearTimeout(timer);
    unwatch?.();
  }
}
