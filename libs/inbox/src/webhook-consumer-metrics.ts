import type { Clock } from '@berth/contract';
import type { Collection } from 'mongodb';
import type { BerthLogger } from '@berth/logger';
import type { ConsumerRunnerOptions } from '@berth/messaging';
import {
  createJobMetrics,
  createQueueDepthMetric,
  createWebhookBacklogMetrics,
  jetStreamConsumerDepths,
  type ConsumerInfoSource,
  type Registry,
  type WebhookBacklogReading,
} from '@berth/metrics';
import type { InboxEventDocument } from './types';

/** What {@link registerWebhookConsumerMetrics} reads from. */
export interface WebhookConsumerMetricsOptions {
  registry: Registry;
  jsm: ConsumerInfoSource;
  /** The durable consumer the service reads; its name is the `queue` label. */
  consumer: { stream: string; durable: string };
  /** The provider whose inbox events the service processes. */
  provider: string;
  /** The inbox collection (`webhookEvents`). */
  events: Collection<InboxEventDocument>;
  /** How long one reading of the consumer info and of the inbox serves scrapes. */
  readCacheMs: number;
  logger: BerthLogger;
  /** What the backlog's ages are measured against; defaults to the system clock. */
  clock?: Clock;
}

/**
 * Registers a webhook consumer's metrics (billing-sync, identity-sync) and returns the transport's `onOutcome` hook
 * that feeds them:
 * - `job_completed_total{queue=<durable>,outcome}` and `job_duration_seconds{queue=<durable>}`: one per delivery
 *   (`completed`: acked, an event already processed included; `failed`: nak, retried with backoff;
 *   `dead_lettered`: terminated);
 * - `queue_depth{queue=<durable>,state}`: the consumer's info, read when scraped;
 * - `webhook_dlq_depth{provider}` and `webhook_oldest_unprocessed_age_seconds{provider}`: from the inbox, read when
 *   scraped.
 */
export function registerWebhookConsumerMetrics(
  options: WebhookConsumerMetricsOptions,
): NonNullable<ConsumerRunnerOptions['onOutcome']> {
  const { registry, logger, consumer } = options;
  const jobs = createJobMetrics(registry, { consumes: [consumer.durable] });
  createQueueDepthMetric(registry, {
    read: jetStreamConsumerDepths(options.jsm, [
      { queue: consumer.durable, stream: consumer.stream, consumer: consumer.durable },
    ]),
    cacheMs: options.readCacheMs,
    logger,
  });
  createWebhookBacklogMetrics(registry, {
    read: async () => [await readInboxBacklog(options.events, options.provider)],
    cacheMs: options.readCacheMs,
    clock: options.clock,
    logger,
  });
  return jobs.outcomeRecorder(consumer.durable);
}

/**
 * The inbox backlog of one provider, in two queries on the inbox's indexes: events set aside (`abandonedAt` set,
 * not processed; index `abandonedAt`), and the oldest event neither processed nor set aside (index
 * `{processedAt, receivedAt}`: `processedAt: null`, sorted by `receivedAt`).
 */
export async function readInboxBacklog(
  events: Collection<InboxEventDocument>,
  provider: string,
): Promise<WebhookBacklogReading> {
  const [setAside, oldest] = await Promise.all([
    events.countDocuments({ abandonedAt: { $ne: null }, processedAt: null, provider }),
    events
      .find({ processedAt: null, abandonedAt: null, provider }, { projection: { _id: 0, receivedAt: 1 } })
      .sort({ receivedAt: 1 })
      .limit(1)
      .next(),
  ]);
  return { provider, setAside, oldestUnprocessedReceivedAt: oldest?.receivedAt ?? null };
}
