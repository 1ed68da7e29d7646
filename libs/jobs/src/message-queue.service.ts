import type { QueueDriver } from './drivers/queue-driver';
import type { AddedJob, AddJobOptions } from './job-options';

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
   * run, `{ deduplicationId: 'some-id' }` queues the job once while a job with that id waits, runs or retries.
   */
  add<T = unknown>(name: string, data: T, options?: AddJobOptions): Promise<AddedJob> {
    return this.driver.add(this.queueName, name, data, options);
  }
}
