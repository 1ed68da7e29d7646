import { systemClock, type Clock } from '@berth/contract';
import type { Collection } from 'mongodb';
import { Counter, Gauge } from 'prom-client';
import { readInboxBacklog, type InboxEventDocument } from '@berth/inbox';
import {
  getQueueDepths,
  type DeadLetterReason,
  type JobFinishedEvent,
  type JobObserver,
  type QueueDepth,
} from '@berth/jobs';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import {
  cachedRead,
  createJobMetrics,
  createMetricsRegistry,
  createQueueDepthMetric,
  createWebhookBacklogMetrics,
  getOrCreateMetric,
  type JobOutcome,
  type Registry,
} from '@berth/metrics';
import { defaultConsumerName, type WebhookConsumerSettings } from '@berth/webhook-handlers';

/** A cancelled job is not a run that completed or failed: it counts in `job_cancelled_total` only. */
const OUTCOMES: Record<Exclude<JobFinishedEvent['outcome'], 'cancelled'>, JobOutcome> = {
  completed: 'completed',
  retried: 'failed',
  'dead-lettered': 'dead_lettered',
};

/** Every dead-letter reason, so each `job_dead_lettered_total` series exists at 0 from the start. */
const DEAD_LETTER_REASONS: readonly DeadLetterReason[] = ['unrecoverable', 'exhausted', 'invalid', 'poison'];

/**
 * The worker's metrics registry and the job observer that feeds it:
 * - `job_enqueued_total{queue}` (jobs this process queued), `job_completed_total{queue,outcome}` and
 *   `job_duration_seconds{queue}` per attempt;
 * - `job_dead_lettered_total{queue,reason}` (jobs this process set aside: unrecoverable, exhausted, invalid,
 *   poison) and `job_cancelled_total{queue}`;
 * - read from JetStream at scrape time (JetStream driver only, the same on every replica: aggregate with `max`):
 *   `queue_depth{queue,state}`, `job_delayed{queue}` (delayed jobs not due, rate-limited ones included),
 *   `job_parked{queue}` (jobs waiting for a per-key concurrency slot), `job_dead_letters{queue}` (the dead-letter
 *   depth) and `job_oldest_waiting_seconds{queue}` (age of the oldest job waiting for a worker, 0 when
 *   none waits).
 */
export function createWorkerMetrics(options: {
  /** The process's registry (the service shell's); default a new one with the process metrics. */
  registry?: Registry;
  queues: readonly string[];
  messaging?: Messaging;
  logger: BerthLogger;
  /** How long one reading of the queue depths serves scrapes (default 5000 ms). */
  depthCacheMs?: number;
  /** What the oldest waiting job's age is measured against; defaults to the system clock. */
  clock?: Clock;
}): { registry: Registry; observer: JobObserver } {
  const clock = options.clock ?? systemClock;
  const registry = options.registry ?? createMetricsRegistry({ processMetrics: true });
  const jobs = createJobMetrics(registry, { consumes: options.queues, produces: options.queues });
  const registers = [registry];
  const deadLettered = getOrCreateMetric(
    registry,
    'job_dead_lettered_total',
    () =>
      new Counter({
        name: 'job_dead_lettered_total',
        help: 'Jobs copied to the dead letters, by reason: unrecoverable, exhausted, invalid, poison',
        labelNames: ['queue', 'reason'],
        registers,
      }),
  ) as Counter<'queue' | 'reason'>;
  const cancelled = new Counter({
    name: 'job_cancelled_total',
    help: 'Jobs dropped because they were cancelled (waiting or running)',
    labelNames: ['queue'],
    registers,
  });
  const notRecorded = new Counter({
    name: 'job_completion_not_recorded_total',
    help: 'Jobs that completed but whose record could not be stored in JOBS_COMPLETED (the job itself is settled)',
    labelNames: ['queue'],
    registers,
  });
  for (const queue of options.queues) {
    for (const reason of DEAD_LETTER_REASONS) deadLettered.labels(queue, reason).inc(0);
    cancelled.labels(queue).inc(0);
    notRecorded.labels(queue).inc(0);
  }
  const messaging = options.messaging;
  if (messaging) {
    const read = cachedRead(() => getQueueDepths(messaging), options.depthCacheMs ?? 5000);
    createQueueDepthMetric(registry, {
      cacheMs: 0,
      read: async () =>
        (await read()).map(({ queue, pending, ackPending, redelivered }) => ({
          queue,
          pending,
          ackPending,
          redelivered,
        })),
      logger: options.logger,
    });
    depthGauge(
      registry,
      read,
      options.logger,
      'job_delayed',
      'Delayed jobs not due yet, per queue',
      (depth) => depth.delayed,
    );
    depthGauge(
      registry,
      read,
      options.logger,
      'job_dead_letters',
      'Jobs in the dead letters, per queue (the dead-letter depth)',
      (depth) => depth.deadLetters,
    );
    depthGauge(
      registry,
      read,
      options.logger,
      'job_parked',
      'Jobs waiting for a slot of their per-key concurrency limit, per queue',
      (depth) => depth.parked,
    );
    depthGauge(
      registry,
      read,
      options.logger,
      'job_oldest_waiting_seconds',
      'Age of the oldest job waiting for a worker, per queue (0 when none waits)',
      (depth) =>
        depth.oldestWaitingAt ? Math.max(0, (clock.now().getTime() - depth.oldestWaitingAt.getTime()) / 1000) : 0,
    );
  }
  return {
    registry,
    observer: {
      jobQueued: (event) => {
        if (!event.deduplicated) jobs.enqueued(event.queue);
      },
      jobFinished: (event) => {
        if (event.outcome === 'cancelled') cancelled.labels(event.queue).inc();
        else jobs.completed(event.queue, OUTCOMES[event.outcome], event.durationMs / 1000);
      },
      jobDeadLettered: (event) => deadLettered.labels(event.queue, event.reason).inc(),
      jobCompletionNotRecorded: (event) => notRecorded.labels(event.queue).inc(),
    },
  };
}

/**
 * The metrics of the worker's webhook consumers, and their `onOutcome` hooks: `job_completed_total{queue,outcome}`
 * and `job_duration_seconds{queue}` per delivery, the consumer's name (`webhooks-<provider>`) as `queue`; and,
 * read from the inbox when scraped, `webhook_dlq_depth{provider}` and `webhook_oldest_unprocessed_age_seconds{provider}`.
 */
export function createWebhookConsumerMetrics(
  registry: Registry,
  options: { providers: readonly string[]; events: Collection<InboxEventDocument>; logger: BerthLogger },
): Record<string, WebhookConsumerSettings> {
  const consumers = options.providers.map((provider) => [provider, defaultConsumerName(provider)] as const);
  const jobs = createJobMetrics(registry, { consumes: consumers.map(([, consumer]) => consumer) });
  createWebhookBacklogMetrics(registry, {
    read: () => Promise.all(options.providers.map((provider) => readInboxBacklog(options.events, provider))),
    logger: options.logger,
  });
  return Object.fromEntries(
    consumers.map(([provider, consumer]) => [provider, { onOutcome: jobs.outcomeRecorder(consumer) }]),
  );
}

/** A gauge per queue computed at scrape time from the queue depths; no series when the read fails. */
function depthGauge(
  registry: Registry,
  read: () => Promise<QueueDepth[]>,
  logger: BerthLogger,
  name: string,
  help: string,
  value: (depth: QueueDepth) => number,
): void {
  new Gauge({
    name,
    help,
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const depth of await read()) this.labels(depth.queue).set(value(depth));
      } catch (error) {
        logger.warn({ err: error }, `Could not read queue depths for ${name}`);
      }
    },
  });
}
