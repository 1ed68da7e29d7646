import { getQueueDepths, type JobFinishedEvent, type JobObserver } from '@berth/jobs';
import type { BerthLogger } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import { createJobMetrics, createMetricsRegistry, createQueueDepthMetric, type JobOutcome, type Registry } from '@berth/metrics';

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
