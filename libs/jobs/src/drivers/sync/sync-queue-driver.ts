import { systemClock, type Clock } from '@berth/contract';
import { randomUUID } from 'node:crypto';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import { decideRetry, describeError, type RetryPolicy } from '@berth/messaging';
import { describeJobError } from '../../dead-letters/dead-letter';
import type { JobRegistry } from '../../discovery/job-registry';
import { JobCancelledError, UnknownJobError } from '../../errors';
import { runJobAttempt } from '../../flow/run-job-attempt';
import { createWorkerEvents, type WorkerEvents } from '../../flow/worker-events';
import type { JobObserver } from '../../job-observer';
import {
  assertAddJobOptions,
  jobRetryPolicy,
  type AddedJob,
  type AddJobOptions,
  type ResolvedQueueOptions,
} from '../../job-options';
import { assertJobName, assertQueueName, jobSubject } from '../../names';
import { CancellationSet, type CancellationRecord } from '../cancellations';
import type { PromotedJob } from '../../operations/promote-job';
import type { QueueDriver } from '../queue-driver';
import type { InMemoryDeadLetters } from './in-memory-dead-letters';
import { MemoryDeduplicationRegistry } from './memory-deduplication-registry';

/** Options for {@link SyncQueueDriver}. */
export interface SyncQueueDriverOptions {
  registry: JobRegistry;
  deadLetters: InMemoryDeadLetters;
  settingsOf: (queue: string) => ResolvedQueueOptions;
  logger: BerthLogger;
  logContext?: LogContextStore;
  observer?: JobObserver;
  /** Stamps `addedAt`, `failedAt`, `cancelledAt`; the system clock by default. */
  clock?: Clock;
  /** Where the driver reports each attempt (`WorkerEventMap`, as the JetStream worker does); a new emitter by default. */
  events?: WorkerEvents;
}

/**
 * Runs a job inside the `add` call that queues it, for integration tests: its effects are there when `add`
 * resolves, and no NATS is needed.
 *
 * - The data goes through JSON, as it would through JetStream.
 * - A failing job is retried at once, up to its `retryLimit`, with no wait; `UnrecoverableError` stops at once.
 *   When it fails for good it is recorded in {@link InMemoryDeadLetters} and `add` rejects with its last error.
 * - `delayInMilliseconds` is ignored: the job runs now.
 * - `deduplicationId`: while a job with that id runs (a job that queues itself, concurrent `add`s), adding another
 *   does nothing.
 * - A job whose `@Process` method no provider of the application has makes `add` reject.
 * - `timeoutMs` works as on JetStream (the signal fires, the attempt fails and is retried at once);
 *   `cancel(jobId)` of a job running in this process fires its signal and `add` resolves (the job is dropped).
 * - A batch job (`@Process(name, { batch })`) gets batches of one: each `add` runs its job at once, alone, so a
 *   test sees its effect when `add` resolves; a `BatchJobError` listing the job fails it like any job.
 */
export class SyncQueueDriver implements QueueDriver {
  private readonly deduplication = new MemoryDeduplicationRegistry();
  private readonly cancellations = new Map<string, CancellationSet>();

  /** What happens to each job's attempts (the same events as the JetStream worker's). */
  readonly events: WorkerEvents;

  private readonly clock: Clock;

  constructor(private readonly options: SyncQueueDriverOptions) {
    this.clock = options.clock ?? systemClock;
    this.events = options.events ?? createWorkerEvents();
  }

  async add(queue: string, name: string, data: unknown, options: AddJobOptions = {}): Promise<AddedJob> {
    assertQueueName(queue);
    assertJobName(name);
    assertAddJobOptions(options);
    const job = this.options.registry.find(queue, name);
    if (!job) throw new UnknownJobError(queue, name);
    const jobId = randomUUID();
    const retryLimit = options.retryLimit ?? this.options.settingsOf(queue).retryLimit;
    if (options.deduplicationId !== undefined) {
      const claim = await this.deduplication.claim(queue, options.deduplicationId, jobId);
      if (!claim.claimed) {
        this.options.observer?.jobQueued?.({ queue, name, deduplicated: true });
        return { id: claim.existingJobId, deduplicated: true };
      }
    }
    this.options.observer?.jobQueued?.({ queue, name, deduplicated: false });
    // The JetStream driver's attempts, with no wait between them.
    const immediateRetries: RetryPolicy = {
      maxAttempts: jobRetryPolicy(this.options.settingsOf(queue).backoff, retryLimit).maxAttempts,
      delayAfter: () => 0,
    };
    const payload = JSON.stringify(data === undefined ? null : data);
    const addedAt = this.clock.now().toISOString();
    try {
      for (let attempt = 1; ; attempt++) {
        const run = () =>
          runJobAttempt({
            job,
            data: JSON.parse(payload),
            info: { id: jobId, name, queue, attempt, addedAt },
            timeoutMs: options.timeoutMs ?? job.timeoutMs ?? this.options.settingsOf(queue).timeoutMs,
            cancellations: this.cancellationsOf(queue),
            events: this.events,
          });
        const started = performance.now();
        const finished = (outcome: 'completed' | 'retried' | 'dead-lettered' | 'cancelled'): void =>
          this.options.observer?.jobFinished?.({
            queue,
            name,
            outcome,
            attempt,
            durationMs: performance.now() - started,
          });
        try {
          await (this.options.logContext
            ? this.options.logContext.run({ queue, jobName: name, jobId, attempt }, run)
            : run());
          finished('completed');
          return { id: jobId, deduplicated: false };
        } catch (error) {
          if (error instanceof JobCancelledError) {
            finished('cancelled');
            return { id: jobId, deduplicated: false };
          }
          const decision = decideRetry(immediateRetries, { attempt, error });
          const last = decision.kind === 'give-up';
          finished(last ? 'dead-lettered' : 'retried');
          const log = () =>
            last
              ? this.options.logger.error(
                  { err: error, attempt },
                  `Gave up after attempt ${attempt}: ${describeError(error)}`,
                )
              : this.options.logger.warn(
                  { err: error, attempt, retryInMs: 0 },
                  `Attempt ${attempt} failed: ${describeError(error)}`,
                );
          if (this.options.logContext) this.options.logContext.run({ queue, jobName: name, jobId, attempt }, log);
          else log();
          if (!last) continue;
          this.options.deadLetters.add({
            jobId,
            queue,
            name,
            data: JSON.parse(payload),
            reason: decision.reason,
            error: describeJobError(error),
            attempts: attempt,
            retryLimit,
            deduplicationId: options.deduplicationId,
            addedAt,
            failedAt: this.clock.now().toISOString(),
            originalSubject: jobSubject(queue, name),
            originalStreamSequence: 0,
          });
          throw error;
        }
      }
    } finally {
      if (options.deduplicationId !== undefined)
        await this.deduplication.release(queue, options.deduplicationId, jobId);
    }
  }

  async cancel(queue: string, jobId: string, reason?: string): Promise<CancellationRecord> {
    const record: CancellationRecord = {
      queue,
      jobId,
      cancelledAt: this.clock.now().toISOString(),
      ...(reason ? { reason } : {}),
    };
    this.cancellationsOf(queue).add(record);
    return record;
  }

  /** Nothing waits here (a delay is ignored, the job ran in `add`): there is no delayed job to promote. */
  async promote(queue: string, jobId: string): Promise<PromotedJob> {
    return {
      queue,
      jobId,
      promoted: false,
      reason: `job ${jobId} of ${queue} is not delayed (the sync driver runs jobs at once)`,
    };
  }

  private cancellationsOf(queue: string): CancellationSet {
    let set = this.cancellations.get(queue);
    if (!set) this.cancellations.set(queue, (set = new CancellationSet()));
    return set;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}
}
