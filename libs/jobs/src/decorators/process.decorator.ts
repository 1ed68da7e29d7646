import { applyDecorators, SetMetadata } from '@nestjs/common';
import { PROCESS_METADATA, PROCESS_OPTIONS_METADATA } from './metadata-keys';

/** What `@Process(name, options)` can set for the job of that method. */
export interface ProcessOptions {
  /**
   * Longest one attempt may run, in ms: at the deadline the handler's `info.signal` fires and the attempt fails
   * with `JobTimeoutError` (retried, or dead-lettered after the last attempt). `add(…, { timeoutMs })` wins over
   * it; it wins over the queue's `timeoutMs`.
   */
  timeoutMs?: number;
  /**
   * Per-key concurrency: `{ key: (data) => data.workspaceId, limit: 2 }` runs at most 2 jobs of one workspace at
   * once across every worker and replica; the others wait without failing, and other workspaces are not held up.
   * A job whose `key` returns undefined is not limited. `add(…, { concurrency })` wins over it.
   */
  concurrency?: { key: (data: never) => string | undefined; limit: number };
  /**
   * Per-key rate limit: `{ key: (data) => data.workspaceId, limit: 10, perMs: 1000 }` starts at most 10 jobs of one
   * workspace a second across every worker; the others wait (not failed). `add(…, { rateLimit })` wins over it.
   */
  rateLimit?: { key: (data: never) => string | undefined; limit: number; perMs: number };
  /**
   * Makes the method a batch handler: `@Process(Name, { batch: { size: 100, waitMs: 200 } })` receives up to `size`
   * jobs at once, `handle(jobs: BatchJob<T>[], info: BatchInfo)`, a batch being handed over when full or `waitMs`
   * after its first job came. Resolving completes every job; throwing a `BatchJobError` fails only the jobs it
   * lists (each retried on its own, with its own attempt count); any other throw fails every job of the batch.
   * Refused with `concurrency` or `rateLimit` (a job added with its own flow options runs in a batch of one).
   */
  batch?: { size: number; waitMs: number };
}

/**
 * Names the job a method runs: `@Process(SendClientSummaryJob.name)`. Naming the job after its class means the
 * name can't be misspelled between the code that queues it and the code that runs it. The method receives the
 * job's data, then a `JobInfo` (id, attempt, an `AbortSignal` that fires on timeout or cancellation…) if it wants
 * one; resolving completes the job, throwing retries it (or, with `UnrecoverableError`, fails it at once).
 */
export function Process(jobName: string, options: ProcessOptions = {}): MethodDecorator {
  return applyDecorators(SetMetadata(PROCESS_METADATA, jobName), SetMetadata(PROCESS_OPTIONS_METADATA, options));
}
