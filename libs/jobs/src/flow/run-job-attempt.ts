import type { JobInfo, RegisteredJob } from '../discovery/job-registry';
import { JobCancelledError } from '../errors';
import type { CancellationWatch } from '../drivers/cancellations';
import { runAttempt } from './run-attempt';
import type { WorkerEvents } from './worker-events';

/** One attempt of one job, as both drivers describe it. */
export interface JobAttempt {
  job: Pick<RegisteredJob, 'run'>;
  data: unknown;
  /** The job's id, name, queue, attempt and `addedAt` (the signal is added here). */
  info: Omit<JobInfo, 'signal'>;
  /** The attempt's deadline: the job's own, else its `@Process` one, else the queue's. */
  timeoutMs: number | undefined;
  /** Where a cancellation of the job comes from; the attempt's signal fires with `JobCancelledError` on one. */
  cancellations?: Pick<CancellationWatch, 'onCancel'>;
  events?: WorkerEvents;
}

/**
 * Runs one attempt of a job under its deadline and its cancellation ({@link runAttempt}), reporting
 * `job:start`, then `job:complete`, `job:error` or `job:dropped` (a cancel that stopped it). Settles with the
 * attempt: resolves on success, rejects with the job's error, `JobTimeoutError` or `JobCancelledError`.
 */
export async function runJobAttempt(attempt: JobAttempt): Promise<void> {
  const { info, events } = attempt;
  const ref = { queue: info.queue, name: info.name, jobId: info.id, attempt: info.attempt };
  events?.emit('job:start', ref);
  const started = performance.now();
  const cancellations = attempt.cancellations;
  try {
    await runAttempt((signal) => attempt.job.run(attempt.data, { ...info, signal }), {
      timeoutMs: attempt.timeoutMs,
      watch: cancellations
        ? (abort) => cancellations.onCancel(info.id, (c) => abort(new JobCancelledError(c.jobId, c.reason)))
        : undefined,
    });
  } catch (error) {
    if (error instanceof JobCancelledError)
      events?.emit('job:dropped', { ...ref, gate: 'cancel', reason: error.reason ?? 'cancelled' });
    else events?.emit('job:error', { ...ref, durationMs: performance.now() - started, error });
    throw error;
  }
  events?.emit('job:complete', { ...ref, durationMs: performance.now() - started });
}
