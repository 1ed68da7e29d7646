import type { Clock } from '@berth/contract';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import type { CronRunGuard } from './cron-run-guard';
import type { BatchingOptions } from './drivers/jetstream/job-batch-publisher';
import type { JobInfrastructureOptions } from './drivers/jetstream/job-infrastructure';
import type { JobObserver } from './job-observer';
import type { QueueOptions } from './job-options';

/** `jetstream` in services; `sync` in integration tests (`MESSAGE_QUEUE_DRIVER=sync`). */
export type MessageQueueDriverName = 'jetstream' | 'sync';

/** Options of `MessageQueueModule.forRoot`. */
export interface MessageQueueModuleOptions {
  driver: MessageQueueDriverName;
  /** The JetStream connection (required by the `jetstream` driver; the service owns and closes it). */
  messaging?: Messaging;
  logger: BerthLogger;
  /** The process's log context: every line written during a job then names it (jobName, jobId, queue, attempt). */
  logContext?: LogContextStore;
  /** Settings per queue name (concurrency, retries, backoff…); unlisted queues use `defaults`. */
  queueOptions?: Record<string, QueueOptions>;
  defaults?: QueueOptions;
  /** Run the jobs found among the providers (default true); false in a service that only queues jobs. */
  consume?: boolean;
  /** How long shutdown waits for running jobs (default 25 s, inside Kubernetes' 30 s grace period). */
  shutdownGraceMs?: number;
  /** Group commit of `add` (JetStream driver). */
  batching?: BatchingOptions;
  /** Stream provisioning and the deduplication bucket (JetStream driver). */
  infrastructure?: JobInfrastructureOptions;
  /**
   * The clock jobs are stamped, delayed and leased by (`addedAt`, due times, dead letters, throttle windows);
   * `systemClock` by default, a `ManualClock` in a test that moves time.
   */
  clock?: Clock;
  /** Random source for backoff jitter; tests pass a fixed one. */
  random?: () => number;
  /** Told of every job queued and every attempt finished (metrics). */
  observer?: JobObserver;
  /**
   * Wraps every run of a `@CronProcessor` job: the service's overlap policy. Services pass `@berth/cron`'s run lock
   * (`cronRunLockGuard`), which skips a tick with a log line while the previous run of that cron is still going.
   * Unset: cron jobs run like any job.
   */
  cronRunGuard?: CronRunGuard;
}

/** Injection token of the module's options. */
export const MESSAGE_QUEUE_MODULE_OPTIONS = 'BerthMessageQueueModuleOptions';

/** Injection token of the active driver. */
export const MESSAGE_QUEUE_DRIVER = 'BerthMessageQueueDriver';

/** Injection token of the declared queue names. */
export const MESSAGE_QUEUE_NAMES_TOKEN = 'BerthMessageQueueNames';
