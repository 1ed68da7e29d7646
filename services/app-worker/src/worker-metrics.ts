import type { Collection } from 'mongodb';
import { readInboxBacklog, type InboxEventDocument } from '@berth/inbox';
import { getQueueDepths, type JobFinishedEvent, type JobObserver } from '@berth/jobs';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import { createJobMetrics, createMetricsRegistry, createQueueDepthMetric, createWebhookBacklogMetrics, type JobOutcome, type Registry } from '@berth/metrics';
import { defaultConsumerName, type WebhookConsumerSettings } from '@berth/webhook-handlers';

const OUTCOMES: Record<JobFinishedEvent['outcome'], JobOutcome> = { completed: 'completed', retried: 'failed', 'dead-lettered': 'dead_lettered' };

/**
 * The worker's metrics registry and the job observer that feeds it: `job_enqueued_total{queue}` (jobs this process
 * queued, e.g. the cron's one per workspace), `job_completed_total{queue,outcome}` and `job_duration_seconds{queue}`
 * per attempt, and `queue_depth{queue,state}` read from JetStream at scrape time (JetStream driver only).
 */
export function createWorkerMetrics(options: { queues: readonly string[]; messaging?: Messaging; logger: BerthLogger }): { registry: Registry; observer: JobObserver } {
  const registry = createMetricsRegistry({ processMetrics: true });
  const jobs = createJobMetrics(registry, { consumes: options.queues, produces: options.queues });
  const messaging = options.messaging;
  if (messaging) {
    createQueueDepthMetric(registry, {
      read: async () => (await getQueueDepths(messaging)).map(({ queue, pending, ackPending, redelivered }) => ({ queue, pending, ackPending, redelivered })),
      logger: options.logger,
    });
  }
  return {
    registry,
    observer: {
      jobQueued: (event) => {
        if (!event.deduplicated) jobs.enqueued(event.queue);
      },
      jobFinished: (event) => jobs.completed(event.queue, OUTCOMES[event.outcome], event.durationMs / 1000),
    },
  };
}

/**
 * The metrics of the worker's webhook consumers, and their `onOutcome` hooks: `job_completed_total{queue,outcome}`
 * and `job_duration_seconds{queue}` per delivery, the consumer's name (`webhooks-<provider>`) as `queue`; and,
 * read from the inbox when scraped, `webhook_dlq_depth{provider}` and `webhook_oldest_unprocessed_age_seconds{provider}`.
 */
export function createWebhookConsumerMetrics(registry: Registry, options: { providers: readonly string[]; events: Collection<InboxEventDocument>; logger: BerthLogger }): Record<string, WebhookConsumerSettings> {
  const consumers = options.providers.map((provider) => [provider, defaultConsumerName(provider)] as const);
  const jobs = createJobMetrics(registry, { consumes: consumers.map(([, consumer]) => consumer) });
  createWebhookBacklogMetrics(registry, { read: () => Promise.all(options.providers.map((provider) => readInboxBacklog(options.events, provider))), logger: options.logger });
  return Object.fromEntries(consumers.map(([provider, consumer]) => [provider, { onOutcome: jobs.outcomeRecorder(consumer) }]));
}
