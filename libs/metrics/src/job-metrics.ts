import { Counter, Histogram, type Registry } from 'prom-client';
import { getOrCreateMetric } from './registry-helpers';

/**
 * How one run of a job (or one delivery of a webhook event) ended; the `outcome` label of `job_completed_total`:
 * - `completed`: the handler succeeded, the message was acked (an event found already processed counts here too);
 * - `failed`: the handler threw and the message will be delivered again (nak with backoff);
 * - `dead_lettered`: given up for good (an `UnrecoverableError`, or the last attempt failed); the message was
 *   terminated after being set aside (dead-letter stream, or the inbox's `abandonedAt`).
 *
 * Each run counts once, under one outcome, so `sum by (queue)` is the number of runs, and failures per minute are
 * `outcome=~"failed|dead_lettered"`.
 */
export type JobOutcome = 'completed' | 'failed' | 'dead_lettered';

/** Every {@link JobOutcome}. */
export const JOB_OUTCOMES: readonly JobOutcome[] = ['completed', 'failed', 'dead_lettered'];

/** How the consumer runner (`@berth/messaging`, its `onOutcome` hook) settled a message. */
export type TransportOutcome = 'acked' | 'retried' | 'terminated';

const OUTCOME_OF_TRANSPORT: Record<TransportOutcome, JobOutcome> = {
  acked: 'completed',
  retried: 'failed',
  terminated: 'dead_lettered',
};

/** The {@link JobOutcome} of a consumer-runner outcome. */
export function jobOutcomeOf(outcome: TransportOutcome): JobOutcome {
  return OUTCOME_OF_TRANSPORT[outcome];
}

/** `job_duration_seconds` buckets: from a quick write (5 ms) to a long job (10 min). */
export const JOB_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Options for {@link createJobMetrics}. */
export interface JobMetricsOptions {
  /**
   * Queues this process runs (a webhook consumer's name, e.g. `billing-sync`; a job queue's name): their
   * `job_completed_total` series exist at 0 from the start, so `rate()` and alerts see the first run.
   */
  consumes?: readonly string[];
  /** Queues this process adds jobs to: their `job_enqueued_total` series exist at 0 from the start. */
  produces?: readonly string[];
}

/** The seed's job metrics, for one process. */
export interface JobMetrics {
  /** Counts jobs added to `queue` (several at once for a batch). */
  enqueued(queue: string, count?: number): void;
  /** Records one run of a job of `queue`: its outcome and how long it took. */
  completed(queue: string, outcome: JobOutcome, durationSeconds: number): void;
  /**
   * A consumer runner's `onOutcome` hook recording into these metrics for `queue`:
   * `onOutcome: jobMetrics.outcomeRecorder('billing-sync')`. `next`, when given, is called after (tests wait on it).
   */
  outcomeRecorder<M>(
    queue: string,
    next?: (message: M, outcome: TransportOutcome, durationMs: number) => void,
  ): (message: M, outcome: TransportOutcome, durationMs: number) => void;
}

/**
 * Registers the job metrics of seed 004 in `registry` (a per-process registry, never prom-client's global one):
 * - `job_enqueued_total{queue}`: jobs added, where they are added (a producer);
 * - `job_completed_total{queue,outcome}`: runs, by {@link JobOutcome}, where they run (a worker or a consumer);
 * - `job_duration_seconds{queue}`: time from the start of a run to its ack, nak or term, whatever the outcome.
 *
 * Calling it twice on one registry (a producer and a worker in one process) shares the same metrics.
 */
export function createJobMetrics(registry: Registry, options: JobMetricsOptions = {}): JobMetrics {
  const registers = [registry];
  const enqueuedTotal = getOrCreateMetric(
    registry,
    'job_enqueued_total',
    () => new Counter({ name: 'job_enqueued_total', help: 'Jobs added to a queue', labelNames: ['queue'], registers }),
  ) as Counter<'queue'>;
  const completedTotal = getOrCreateMetric(
    registry,
    'job_completed_total',
    () =>
      new Counter({
        name: 'job_completed_total',
        help: 'Job runs (webhook event deliveries) finished, by outcome: completed, failed (will be retried), dead_lettered',
        labelNames: ['queue', 'outcome'],
        registers,
      }),
  ) as Counter<'queue' | 'outcome'>;
  const duration = getOrCreateMetric(
    registry,
    'job_duration_seconds',
    () =>
      new Histogram({
        name: 'job_duration_seconds',
        help: 'Duration of a job run (webhook event delivery), whatever its outcome',
        labelNames: ['queue'],
        buckets: JOB_DURATION_BUCKETS,
        registers,
      }),
  ) as Histogram<'queue'>;

  for (const queue of options.produces ?? []) enqueuedTotal.labels(queue).inc(0);
  for (const queue of options.consumes ?? []) {
    for (const outcome of JOB_OUTCOMES) completedTotal.labels(queue, outcome).inc(0);
    duration.zero({ queue });
  }

  const completed = (queue: string, outcome: JobOutcome, durationSeconds: number): void => {
    completedTotal.labels(queue, outcome).inc();
    duration.labels(queue).observe(durationSeconds);
  };
  return {
    enqueued(queue, count = 1) {
      if (count > 0) enqueuedTotal.labels(queue).inc(count);
    },
    completed,
    outcomeRecorder(queue, next) {
      return (message, outcome, durationMs) => {
        completed(queue, jobOutcomeOf(outcome), durationMs / 1000);
        next?.(message, outcome, durationMs);
      };
    },
  };
}
