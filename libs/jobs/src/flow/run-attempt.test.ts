import { JobCancelledError, JobTimeoutError } from '../errors';
import { runAttempt } from './run-attempt';

describe('runAttempt', () => {
  it('resolves with the task when nothing stops it', async () => {
    let seen: AbortSignal | undefined;
    await runAttempt(
      async (signal) => {
        seen = signal;
      },
      { timeoutMs: 1000 },
    );
    expect(seen?.aborted).toBe(false);
  });

  it('fires the signal at the deadline and rejects with JobTimeoutError, even if the task ignores it', async () => {
    let signal: AbortSignal | undefined;
    const never = new Promise<void>(() => undefined);
    await expect(runAttempt((s) => ((signal = s), never), { timeoutMs: 30 })).rejects.toBeInstanceOf(JobTimeoutError);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBeInstanceOf(JobTimeoutError);
  });

  it('aborts on an outside abort, and unsubscribes when the attempt ends', async () => {
    let abort: ((reason: Error) => void) | undefined;
    let unsubscribed = 0;
    const watch = (fn: (reason: Error) => void) => ((abort = fn), () => void (unsubscribed += 1));
    const attempt = runAttempt(() => new Promise<void>(() => undefined), { watch });
    abort?.(new JobCancelledError('j1', 'not needed'));
    await expect(attempt).rejects.toThrow('Job j1 was cancelled: not needed');
    expect(unsubscribed).toBe(1);
  });

  it('passes the task error through, and a task that throws after the abort changes nothing', async () => {
    await expect(
      runAttempt(async () => {
        throw new Error('boom');
      }, {}),
    ).rejects.toThrow('boom');
    const late = runAttempt(
      (signal) =>
        new Promise<void>((_, reject) =>
          signal.addEventListener('abort', () => setTimeout(() => reject(new Error('late')), 5)),
        ),
      { timeoutMs: 10 },
    );
    await expect(late).rejects.toBeInstanceOf(JobTimeoutError);
  });
});
