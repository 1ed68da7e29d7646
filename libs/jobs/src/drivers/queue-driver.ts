import type { CancellationRecord } from './cancellations';
import type { JobRegistry } from '../discovery/job-registry';
import type { AddedJob, AddJobOptions } from '../job-options';
import type { PromotedJob } from '../operations/promote-job';

/** How jobs are stored and run: on JetStream by workers, or inside the `add` call (sync). */
export interface QueueDriver {
  /** Queues one job (or, with the sync driver, runs it). */
  add(queue: string, name: string, data: unknown, options?: AddJobOptions): Promise<AddedJob>;
  /** Cancels a job of the queue: a waiting one never runs, a running one has its signal fired and is dropped. */
  cancel(queue: string, jobId: string, reason?: string): Promise<CancellationRecord>;
  /** Runs a delayed job of the queue now instead of at its due time (see `promoteJob`). */
  promote(queue: string, jobId: string): Promise<PromotedJob>;
  /** Starts running the registry's jobs (called once the application is bootstrapped). */
  start(registry: JobRegistry): Promise<void>;
  /** Stops taking jobs and lets running ones finish, up to `graceMs`. */
  stop(graceMs: number): Promise<void>;
  /**
   * False when a queue this process runs has stopped taking jobs (its consumer died or cannot pull): readiness
   * includes it. A driver without consumers of its own leaves it out.
   */
  healthy?(): boolean;
}
