import { UnrecoverableError } from '@berth/messaging';

/** A job message names a job no `@Process` method of this worker runs; it goes to the dead letters at once. */
export class UnknownJobError extends UnrecoverableError {
  constructor(queue: string, name: string) {
    super(`No @Process(${JSON.stringify(name)}) on queue ${queue} among this worker's providers`);
    this.name = 'UnknownJobError';
  }
}

/**
 * The attempt ran past its `timeoutMs`: the handler's `AbortSignal` fired with this error as its reason, and the
 * attempt failed with it (retried with backoff, or dead-lettered after the last attempt).
 */
export class JobTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`Job timed out after ${timeoutMs} ms`);
    this.name = 'JobTimeoutError';
  }
}

/** The job was cancelled (`cancel(jobId)`): its signal fired with this reason; the job is dropped, not retried. */
export class JobCancelledError extends Error {
  constructor(
    readonly jobId: string,
    readonly reason?: string,
  ) {
    super(`Job ${jobId} was cancelled${reason ? `: ${reason}` : ''}`);
    this.name = 'JobCancelledError';
  }
}

/**
 * The job's message was delivered again after its worker died (or stalled past the lease) while running it,
 * `deaths` times: it goes to the dead letters with reason `poison` instead of taking down the next worker.
 */
export class PoisonMessageError extends UnrecoverableError {
  constructor(readonly deaths: number) {
    super(`A worker died ${deaths} times while running this job (poison limit reached)`);
    this.name = 'PoisonMessageError';
  }
}

/** One job of a batch that failed, as a batch handler reports it in a {@link BatchJobError}. */
export interface BatchJobFailure {
  jobId: string;
  /** What the job failed with: an `UnrecoverableError` dead-letters it at once, anything else is retried. */
  error: unknown;
}

/**
 * Thrown by a batch handler (`@Process(name, { batch })`) when only some jobs of the batch failed: the listed jobs
 * are retried one by one (each with its own attempt count and backoff, or dead-lettered), the others complete.
 * Any other error thrown by a batch handler fails every job of the batch.
 */
export class BatchJobError extends Error {
  constructor(readonly failures: BatchJobFailure[]) {
    super(`${failures.length} job(s) of the batch failed`);
    this.name = 'BatchJobError';
  }
}
