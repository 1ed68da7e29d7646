import type { CronDefinition } from './cron-definition';

/** What a `@Process` method receives after the data: which job this is and which attempt. */
export interface JobInfo {
  /** The job's id (the same across its retries): a good idempotency key for calls to other services. */
  id: string;
  name: string;
  queue: string;
  /** 1 on the first run. */
  attempt: number;
  /** When `add` was called (ISO 8601). */
  addedAt: string;
  /**
   * Fires when the attempt should stop: its `timeoutMs` passed (reason `JobTimeoutError`), the job was cancelled
   * (`JobCancelledError`), or, for a cron job under a `cronRunGuard`, the run lock was lost. Pass it to `fetch`,
   * database drivers and loops. The worker settles the attempt at that moment whatever the handler does; nothing
   * kills a handler that ignores it, so a job must be idempotent anyway. (Optional only for `JobInfo`s built by
   * hand in unit tests; the drivers always set it.)
   */
  signal?: AbortSignal;
}

/** One job of a batch, as a batch handler (`@Process(name, { batch })`) receives it. */
export interface BatchJob<T = unknown> {
  id: string;
  name: string;
  queue: string;
  /** This job's attempt, 1 on its first run (jobs of one batch may be at different attempts). */
  attempt: number;
  addedAt: string;
  data: T;
}

/** What a batch handler receives after its jobs. */
export interface BatchInfo {
  name: string;
  queue: string;
  /** Fires when the batch's attempt should stop (its `timeoutMs` passed). */
  signal: AbortSignal;
}

/** A job the workers of this process can run. */
export interface RegisteredJob {
  queue: string;
  name: string;
  /** The class holding the `@Process` method. */
  className: string;
  /**
   * Runs the job's method on the provider instance: `handle(data, info)`. For a batch job, a batch of this one job
   * (a `BatchJobError` listing it rejects with the job's own error).
   */
  run(data: unknown, info: JobInfo): Promise<void>;
  /** From `@Process(name, { batch })`: the batch size and wait, if the method takes batches. */
  batch?: { size: number; waitMs: number };
  /** Runs a batch job's method on several jobs at once (set with `batch`). */
  runBatch?(jobs: BatchJob[], info: BatchInfo): Promise<void>;
  /** Deadline of each attempt from `@Process(name, { timeoutMs })`, if set. */
  timeoutMs?: number;
  /** Per-key concurrency from `@Process(name, { concurrency })`, if set. */
  concurrency?: { key: (data: unknown) => string | undefined; limit: number };
  /** Per-key rate limit from `@Process(name, { rateLimit })`, if set. */
  rateLimit?: { key: (data: unknown) => string | undefined; limit: number; perMs: number };
}

/**
 * The jobs and crons discovered among the providers of the application's modules at start-up, by queue and name.
 * Filled once by the explorer; read by the drivers, and by a scheduler for the crons.
 */
export class JobRegistry {
  private readonly byQueue = new Map<string, Map<string, RegisteredJob>>();
  private readonly cronList: CronDefinition[] = [];

  /** Adds a job; throws when another class already runs a job of that name on that queue. */
  register(job: RegisteredJob): void {
    const jobs = this.byQueue.get(job.queue) ?? new Map<string, RegisteredJob>();
    const existing = jobs.get(job.name);
    if (existing) {
      throw new Error(
        `Job ${job.name} on queue ${job.queue} is processed twice: by ${existing.className} and by ${job.className}`,
      );
    }
    jobs.set(job.name, job);
    this.byQueue.set(job.queue, jobs);
  }

  /** Adds a cron's schedule. */
  registerCron(definition: CronDefinition): void {
    this.cronList.push(definition);
  }

  /** The job of that name on that queue, if a provider runs it. */
  find(queue: string, name: string): RegisteredJob | undefined {
    return this.byQueue.get(queue)?.get(name);
  }

  /** Queues with at least one job in this process. */
  queues(): string[] {
    return [...this.byQueue.keys()].sort();
  }

  /** The jobs of a queue. */
  jobsOf(queue: string): RegisteredJob[] {
    return [...(this.byQueue.get(queue)?.values() ?? [])];
  }

  /** Every cron found at start-up (name, pattern, time zone), for the scheduler to register. */
  crons(): CronDefinition[] {
    return [...this.cronList];
  }
}
