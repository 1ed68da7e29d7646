import { describeError, RetryLaterError, type ReceivedMessage } from '@berth/messaging';
import type { RegisteredJob } from '../../discovery/job-registry';
import { JobCancelledError } from '../../errors';
import { BatchCollector } from '../../flow/batch-collector';
import { runBatch, type BatchContext, type BatchItem } from '../../flow/run-batch';
import type { JobRecord } from '../../job-record';
import { JOBS_STREAM_NAME } from '../../names';
import type { PrioritySemaphore } from '../../flow/priority-semaphore';
import type { CancellationWatch } from '../cancellations';
import { BATCH_RETRY_POLICY, type JetStreamQueueWorkerOptions } from './job-messages';
import type { JobSettlement } from './job-settlement';

/** What the batch runner needs of its worker. */
export interface BatchHost {
  readonly slots: PrioritySemaphore;
  readonly cancelledMessages: WeakSet<ReceivedMessage>;
  cancellations(): CancellationWatch | undefined;
  runSingle(job: RegisteredJob, record: JobRecord, message: ReceivedMessage, stream: string): Promise<void>;
  runJob(job: RegisteredJob, record: JobRecord, message: ReceivedMessage, stream: string): Promise<'ran' | 'parked'>;
}

/**
 * Messages of several jobs and the jobs of batch jobs: each job of a message of several runs in its own log context
 * and settles itself; a batch job's jobs wait in its collector for a batch to fill.
 */
export class BatchRunner {
  /** Jobs of batch jobs waiting for their batch to fill, by job name. */
  private readonly collectors = new Map<string, BatchCollector<BatchItem>>();

  constructor(
    private readonly options: JetStreamQueueWorkerOptions,
    private readonly host: BatchHost,
    private readonly settlement: JobSettlement,
  ) {}

  /** Runs the jobs waiting for a batch to fill now rather than after their `waitMs`. */
  flush(): void {
    for (const collector of this.collectors.values()) collector.flush();
  }

  /**
   * The jobs of a message for a batch job: each goes to its job's collector and runs in a batch. A message of one
   * job fails with that job's error (the runner retries it like any job); in a message of several, a failed job is
   * stored again on its own ({@link settleBatchedFailure}). A job added with its own flow options runs alone.
   */
  async handleBatchJob(
    job: RegisteredJob,
    records: JobRecord[],
    message: ReceivedMessage,
    stream: string,
  ): Promise<void> {
    const single = records.length === 1;
    const outcomes = await Promise.allSettled(
      records.map((record) => this.runInBatch(job, record, message, stream, single)),
    );
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (!failed) return;
    if (single) throw failed.reason;
    throw new RetryLaterError(
      `Could not settle every job of a batch: ${describeError(failed.reason)}`,
      BATCH_RETRY_POLICY.delayAfter(message.deliveryCount),
      { cause: failed.reason },
    );
  }

  async runInBatch(
    job: RegisteredJob,
    record: JobRecord,
    message: ReceivedMessage,
    stream: string,
    single: boolean,
  ): Promise<void> {
    if (hasOwnFlowControl(record)) {
      await (single ? this.host.runSingle(job, record, message, stream) : this.runBatched(job, record, message));
      return;
    }
    const cancelled = this.host.cancellations()?.get(record.id);
    if (cancelled) {
      if (single) this.host.cancelledMessages.add(message);
      await this.settlement.dropCancelled(record, new JobCancelledError(record.id, cancelled.reason));
      if (!single) this.finishedInMessage(job, record.attemptsMade + message.deliveryCount, 0, 'cancelled');
      return;
    }
    if (single) await this.settlement.relocateIfMoved(record, message, stream);
    const attempt = record.attemptsMade + message.deliveryCount;
    const started = performance.now();
    const error = await new Promise<unknown>((settle) => this.collectorOf(job).add({ record, attempt, settle }));
    if (error === undefined) {
      await this.settlement.complete(job.name, record, message, performance.now() - started);
      if (!single) this.finishedInMessage(job, attempt, performance.now() - started, 'completed');
      return;
    }
    if (single) throw error;
    const run = async (): Promise<void> => {
      const outcome = await this.settlement.settleBatchedFailure(job, record, message, attempt, error);
      this.finishedInMessage(job, attempt, performance.now() - started, outcome);
    };
    const fields = { queue: this.options.queue, jobName: job.name, jobId: record.id, attempt, jobCount: undefined };
    await (this.options.logContext ? this.options.logContext.run(fields, run) : run());
  }

  private get batchContext(): BatchContext {
    return {
      queue: this.options.queue,
      slots: this.host.slots,
      defaultTimeoutMs: this.options.settings.timeoutMs,
      logger: this.options.logger,
    };
  }

  private collectorOf(job: RegisteredJob): BatchCollector<BatchItem> {
    let collector = this.collectors.get(job.name);
    if (!collector) {
      const { size, waitMs } = job.batch as { size: number; waitMs: number };
      collector = new BatchCollector<BatchItem>({
        size,
        waitMs,
        flush: (items) => void runBatch(job, items, this.batchContext),
      });
      this.collectors.set(job.name, collector);
    }
    return collector;
  }

  /** A job of a message of several settled (a message of one is observed when the runner settles it). */
  finishedInMessage(
    job: RegisteredJob,
    attempt: number,
    durationMs: number,
    outcome: 'completed' | 'retried' | 'dead-lettered' | 'cancelled',
  ): void {
    this.options.observer?.jobFinished?.({ queue: this.options.queue, name: job.name, outcome, attempt, durationMs });
  }

  /** One job of a batch message, in its own log context; settles itself unless storing the outcome fails. */
  async runBatched(job: RegisteredJob, record: JobRecord, message: ReceivedMessage): Promise<void> {
    const attempt = record.attemptsMade + message.deliveryCount;
    const run = async (): Promise<void> => {
      const started = performance.now();
      const finished = (outcome: 'completed' | 'retried' | 'dead-lettered' | 'cancelled'): void =>
        this.options.observer?.jobFinished?.({
          queue: this.options.queue,
          name: job.name,
          outcome,
          attempt,
          durationMs: performance.now() - started,
        });
      try {
        if ((await this.host.runJob(job, record, message, JOBS_STREAM_NAME)) === 'parked') return;
      } catch (error) {
        if (error instanceof JobCancelledError) {
          await this.settlement.dropCancelled(record, error);
          finished('cancelled');
          return;
        }
        finished(await this.settlement.settleBatchedFailure(job, record, message, attempt, error));
        return;
      }
      this.options.logger.debug({ durationMs: Math.round(performance.now() - started) }, 'Job completed');
      await this.settlement.complete(job.name, record, message, performance.now() - started);
      finished('completed');
    };
    const fields = { queue: this.options.queue, jobName: job.name, jobId: record.id, attempt, jobCount: undefined };
    await (this.options.logContext ? this.options.logContext.run(fields, run) : run());
  }
}

/** A job added with its own flow options (per-key concurrency or rate, debounce, singleton) runs alone. */
function hasOwnFlowControl(record: JobRecord): boolean {
  return (
    record.concurrency !== undefined ||
    record.rateLimit !== undefined ||
    record.debounceKey !== undefined ||
    record.singletonKey !== undefined
  );
}
