import type { QueueDriver } from './drivers/queue-driver';
import type { CancellationRecord } from './drivers/cancellations';
import type { AddedJob, AddJobOptions } from './job-options';
import type { PromotedJob } from './operations/promote-job';

/**
 * One queue, as injected with `@InjectMessageQueue('client-queue')`. In a unit test, provide a mock under
 * `getMessageQueueToken('client-queue')` and check what was queued.
 */
export class MessageQueueService {
  constructor(
    /** The queue's name. */
    readonly queueName: string,
    private readonly driver: QueueDriver,
  ) {}

  /**
   * Queues a job: `add<SendClientSummaryJobData>(SendClientSummaryJob.name, { workspaceId })`. Resolves once the
   * job is durably stored (JetStream) or has run (sync driver). Keep `data` small, made of ids: the job loads
   * fresh data itself.
   *
   * Options: `{ retryLimit: 5 }` changes the number of retries, `{ delayInMilliseconds: 60000 }` delays the first
   * run, `{ deduplicationId: 'some-id' }` queues the job once while a job with that id waits, runs or retries,
   * `{ singleton: { key } }` stores nothing while a job of that key waits or runs (`dropped: 'singleton'`).
   */
  add<T = unknown>(name: string, data: T, options?: AddJobOptions): Promise<AddedJob> {
    return this.driver.add(this.queueName, name, data, options);
  }

  /**
   * Cancels a job of this queue by its id (what `add` returned), from any process: a job still waiting (or delayed,
   * or between retries) is dropped when a worker takes it, without running; a running one has its `info.signal`
   * fired with a `JobCancelledError` and its attempt settled at once, and is not retried. Its deduplication id is
   * freed. Resolves once the cancellation is stored; cancelling twice, or a job that already finished, is harmless.
   */
  cancel(jobId: string, reason?: string): Promise<CancellationRecord> {
    return this.driver.cancel(this.queueName, jobId, reason);
  }

  /**
   * Runs a delayed job of this queue (added with `delayInMilliseconds`, or waiting for a retry or a rate limit) now
   * instead of at its due time; exactly once, even when it falls due at the same moment. Resolves with
   * `promoted: false` when the job was no longer delayed.
   */
  promote(jobId: string): Promise<PromotedJob> {
    return this.driver.promote(this.queueName, jobId);
  }
}
