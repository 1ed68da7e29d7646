import type { Clock } from '@berth/contract';
import type { BerthLogger, LogContext, LogContextStore } from '@berth/logger';
import type { Messaging, ReceivedMessage, RetryPolicy } from '@berth/messaging';
import type { JobRegistry } from '../../discovery/job-registry';
import type { WorkerEvents } from '../../flow/worker-events';
import type { JobObserver } from '../../job-observer';
import { decodeJobMessage, type JobRecord } from '../../job-record';
import { jobRetryPolicy, type ResolvedQueueOptions } from '../../job-options';
import { JOBS_STREAM_NAME, parseJobSubject } from '../../names';
import type { JobInfrastructure } from './job-infrastructure';
import type { JetStreamJobProducer } from './jetstream-job-producer';

/** Options for `JetStreamQueueWorker`. */
export interface JetStreamQueueWorkerOptions {
  messaging: Messaging;
  queue: string;
  settings: ResolvedQueueOptions;
  registry: JobRegistry;
  producer: JetStreamJobProducer;
  infrastructure: JobInfrastructure;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Random source for backoff jitter; tests pass a fixed one. */
  random?: () => number;
  observer?: JobObserver;
  /** Stamps what the worker stores (dead letters); the system clock by default. */
  clock?: Clock;
  /** Where the worker reports its jobs' passage (`WorkerEventMap`); a new emitter by default. */
  events?: WorkerEvents;
}

/** A job message as read: its job name and records, or why it can't be read. */
export type ParsedJobMessage = { name: string; records: JobRecord[] } | { name: string; invalid: Error };

/** Retries of a whole batch message after an infrastructure failure (never given up on; nothing is lost). */
export const BATCH_RETRY_POLICY: RetryPolicy = {
  maxAttempts: Number.POSITIVE_INFINITY,
  delayAfter: (failedAttempts) => Math.min(1000 * 2 ** Math.max(0, failedAttempts - 1), 60000),
};

/**
 * How many times its concurrency a worker holds of jobs that pass a per-key admission first (a concurrency or rate
 * key): each admission is a group-committed KV change, so jobs pass theirs while others run.
 */
export const GATED_IN_HAND_FACTOR = 8;

/** Whether the queue's job classes (`@Process`) or its options gate every job by a key. */
export function gatedByJobClasses(
  options: Pick<JetStreamQueueWorkerOptions, 'registry' | 'queue' | 'settings'>,
): boolean {
  return (
    options.settings.rateLimit !== undefined ||
    options.registry.jobsOf(options.queue).some((job) => job.concurrency || job.rateLimit)
  );
}

/** Reads a queue's job messages once each (their job name, records, attempt, retry policy, log fields). */
export class JobMessages {
  private readonly parsed = new WeakMap<ReceivedMessage, ParsedJobMessage>();
  /** The weight of a job keyed at `add` (on a queue whose job classes hold every job gated, it weighs 1). */
  private readonly keyedAtAddWeight: number;

  constructor(private readonly options: JetStreamQueueWorkerOptions) {
    this.keyedAtAddWeight = gatedByJobClasses(options) ? 1 : 1 / GATED_IN_HAND_FACTOR;
  }

  parse(message: ReceivedMessage, stream = JOBS_STREAM_NAME): ParsedJobMessage {
    const cached = this.parsed.get(message);
    if (cached) return cached;
    const name = parseJobSubject(message.subject)?.name ?? '_invalid';
    let parsed: ParsedJobMessage;
    try {
      parsed = {
        name,
        records: decodeJobMessage(message.text(), {
          headers: message.headers,
          msgId: message.msgId,
          stream,
          streamSequence: message.streamSequence,
          storedAt: message.storedAt,
          defaultRetryLimit: this.options.settings.retryLimit,
        }),
      };
    } catch (error) {
      parsed = { name, invalid: error as Error };
    }
    this.parsed.set(message, parsed);
    return parsed;
  }

  contextFor(message: ReceivedMessage): LogContext {
    const parsed = this.parse(message);
    const fields: LogContext = { queue: this.options.queue, jobName: parsed.name };
    if ('records' in parsed && parsed.records.length === 1) fields.jobId = parsed.records[0].id;
    else if ('records' in parsed) fields.jobCount = parsed.records.length;
    return fields;
  }

  /** Jobs in the message (keyed at add, a fraction each): the runner pulls while they are fewer than the concurrency. */
  weightOf(message: ReceivedMessage, stream: string): number {
    const parsed = this.parse(message, stream);
    if (!('records' in parsed)) return 1;
    // A job keyed at `add` passes an admission: held GATED_IN_HAND_FACTOR times over, as on a gated queue.
    let weight = 0;
    for (const record of parsed.records) weight += record.concurrency || record.rateLimit ? this.keyedAtAddWeight : 1;
    return weight;
  }

  attemptOf(message: ReceivedMessage): number {
    const parsed = this.parse(message);
    return 'records' in parsed && parsed.records.length === 1
      ? parsed.records[0].attemptsMade + message.deliveryCount
      : message.deliveryCount;
  }

  retryPolicyOf(message: ReceivedMessage): RetryPolicy {
    const parsed = this.parse(message);
    if ('records' in parsed && parsed.records.length === 1)
      return jobRetryPolicy(this.options.settings.backoff, parsed.records[0].retryLimit, this.options.random);
    return BATCH_RETRY_POLICY;
  }

  /** A message of one job settled: that is the job's attempt (a batch's jobs are observed one by one). */
  observeSingle(
    message: ReceivedMessage,
    outcome: 'acked' | 'retried' | 'terminated',
    durationMs: number,
    parkedMessages: WeakSet<ReceivedMessage>,
    cancelledMessages: WeakSet<ReceivedMessage>,
  ): void {
    const parsed = this.parse(message);
    if (
      !this.options.observer?.jobFinished ||
      !('records' in parsed) ||
      parsed.records.length !== 1 ||
      parkedMessages.has(message)
    )
      return;
    const finished = cancelledMessages.has(message)
      ? 'cancelled'
      : outcome === 'acked'
        ? 'completed'
        : outcome === 'retried'
          ? 'retried'
          : 'dead-lettered';
    this.options.observer.jobFinished({
      queue: this.options.queue,
      name: parsed.name,
      attempt: this.attemptOf(message),
      durationMs,
      outcome: finished,
    });
  }
}
