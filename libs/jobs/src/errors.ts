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
