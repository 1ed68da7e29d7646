import type { Clock } from '@berth/contract';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import type { JobRegistry } from '../../discovery/job-registry';
import type { JobObserver } from '../../job-observer';
import type { AddedJob, AddJobOptions, ResolvedQueueOptions } from '../../job-options';
import type { CancellationRecord } from '../cancellations';
import type { QueueDriver } from '../queue-driver';
import { promoteJob, type PromotedJob } from '../../operations/promote-job';
import {
  provisionJobInfrastructure,
  type JobInfrastructure,
  type JobInfrastructureOptions,
} from './job-infrastructure';
import type { BatchingOptions } from './job-batch-publisher';
import { JetStreamJobProducer } from './jetstream-job-producer';
import { JetStreamQueueWorker } from './jetstream-queue-worker';
import { createWorkerEvents, type WorkerEvents } from '../../flow/worker-events';

/** Options for {@link JetStreamQueueDriver}. */
export interface JetStreamQueueDriverOptions {
  messaging: Messaging;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Settings of each queue (with defaults filled in). */
  settingsOf: (queue: string) => ResolvedQueueOptions;
  /** Run the discovered jobs in this process (default true); false for a service that only queues jobs. */
  consume?: boolean;
  batching?: BatchingOptions;
  infrastructure?: JobInfrastructureOptions;
  /** Random source for backoff jitter; tests pass a fixed one. */
  random?: () => number;
  observer?: JobObserver;
  /** The clock of the producer, the workers and the stores; the system clock by default. */
  clock?: Clock;
  /** Where every queue's worker reports its jobs' passage (`WorkerEventMap`); one new emitter by default. */
  events?: WorkerEvents;
}

/**
 * Jobs on JetStream: `add` stores them in the `JOBS` stream; `start` runs one durable consumer per queue that
 * has jobs in this process; `stop` stops pulling and lets running jobs finish.
 */
export class JetStreamQueueDriver implements QueueDriver {
  /** What happens to the jobs of every queue this process runs, from admission to the end of each attempt. */
  readonly events: WorkerEvents;
  private infrastructure?: Promise<JobInfrastructure>;
  private readonly producer: JetStreamJobProducer;
  private workers: JetStreamQueueWorker[] = [];

  constructor(private readonly options: JetStreamQueueDriverOptions) {
    this.events = options.events ?? createWorkerEvents();
    this.producer = new JetStreamJobProducer({
      messaging: options.messaging,
      infrastructure: () => this.ready(),
      retryLimitOf: (queue) => options.settingsOf(queue).retryLimit,
      batching: options.batching,
      logger: options.logger,
      clock: options.clock,
    });
  }

  /** Streams and the deduplication bucket, provisioned once (a failed attempt is retried by the next call). */
  ready(): Promise<JobInfrastructure> {
    if (!this.infrastructure) {
      this.infrastructure = provisionJobInfrastructure(this.options.messaging, {
        clock: this.options.clock,
        ...this.options.infrastructure,
      });
      this.infrastructure.catch(() => (this.infrastructure = undefined));
    }
    return this.infrastructure;
  }

  async add(queue: string, name: string, data: unknown, options?: AddJobOptions): Promise<AddedJob> {
    const added = await this.producer.add(queue, name, data, options);
    this.options.observer?.jobQueued?.({ queue, name, deduplicated: added.deduplicated });
    return added;
  }

  async cancel(queue: string, jobId: string, reason?: string): Promise<CancellationRecord> {
    return (await this.ready()).cancellations.cancel(queue, jobId, reason);
  }

  promote(queue: string, jobId: string): Promise<PromotedJob> {
    return promoteJob(this.options.messaging, queue, jobId, { clock: this.options.clock });
  }

  async start(registry: JobRegistry): Promise<void> {
    const infrastructure = await this.ready();
    if (this.options.consume === false) return;
    for (const queue of registry.queues()) {
      const settings = this.options.settingsOf(queue);
      const worker = new JetStreamQueueWorker({
        messaging: this.options.messaging,
        queue,
        settings,
        registry,
        producer: this.producer,
        infrastructure,
        logger: this.options.logger,
        logContext: this.options.logContext,
        random: this.options.random,
        observer: this.options.observer,
        events: this.events,
        clock: this.options.clock,
      });
      await worker.start();
      this.workers.push(worker);
      const names = registry
        .jobsOf(queue)
        .map((job) => job.name)
        .join(', ');
      this.options.logger.info(
        { queue, concurrency: settings.concurrency },
        `Queue ${queue}: running ${names} (concurrency ${settings.concurrency})`,
      );
    }
  }

  healthy(): boolean {
    return this.workers.every((worker) => worker.healthy);
  }

  async stop(graceMs: number): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((worker) => worker.stop(graceMs)));
  }
}
