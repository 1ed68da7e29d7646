import type { Collection } from 'mongodb';
import type { InboxEventDocument } from '@berth/inbox';
import type { BerthLogger } from '@berth/logger';
import type { TransportConsumerOptions } from '@berth/messaging';
import {
  createJobMetrics,
  createQueueDepthMetric,
  createWebhookBacklogMetrics,
  jetStreamConsumerDepths,
  type ConsumerInfoSource,
  type Registry,
  type WebhookBacklogReading,
} from '@berth/metrics';
import { BILLING_SYNC_CONSUMER } from './app';

/** The `queue` label of billing-sync's job metrics: its consumer's name. */
export const BILLING_SYNC_QUEUE = BILLING_SYNC_CONSUMER.durable;

/** The provider whose inbox events billing-sync processes. */
export const BILLING_SYNC_PROVIDER = 'stripe';

/** What {@link registerBillingSyncMetrics} reads from. */
export interface BillingSyncMetricsOptions {
  registry: Registry;
  jsm: ConsumerInfoSource;
  /** The inbox collection (`webhookEvents`). */
  events: Collection<InboxEventDocument>;
  /** How long one reading of the consumer info and of the inbox serves scrapes. */
  readCacheMs: number;
  logger: BerthLogger;
  clock?: () => Date;
}

/**
 * Registers billing-sync's metrics in its registry and returns the transport's `onOutcome` hook that feeds them:
 * - `job_completed_total{queue="billing-sync",outcome}` and `job_duration_seconds{queue="billing-sync"}`: one per
 *   delivery of a Stripe event (`completed`: acked, an event already processed included; `failed`: nak, retried
 *   with backoff; `dead_lettered`: terminated);
 * - `queue_depth{queue="billing-sync",state}`: the `billing-sync` consumer's info on `WEBHOOKS`, read when scraped;
 * - `webhook_dlq_depth{provider="stripe"}` and `webhook_oldest_unprocessed_age_seconds{provider="stripe"}`: from
 *   the inbox, read when scraped.
 */
export function registerBillingSyncMetrics(options: BillingSyncMetricsOptions): NonNullable<TransportConsumerOptions['onOutcome']> {
  const { registry, logger } = options;
  const jobs = createJobMetrics(registry, { consumes: [BILLING_SYNC_QUEUE] });
  createQueueDepthMetric(registry, {
    read: jetStreamConsumerDepths(options.jsm, [{ queue: BILLING_SYNC_QUEUE, stream: BILLING_SYNC_CONSUMER.stream, consumer: BILLING_SYNC_CONSUMER.durable }]),
    cacheMs: options.readCacheMs,
    logger,
  });
  createWebhookBacklogMetrics(registry, {
    read: async () => [await readInboxBacklog(options.events, BILLING_SYNC_PROVIDER)],
    cacheMs: options.readCacheMs,
    clock: options.clock,
    logger,
  });
  return jobs.outcomeRecorder(BILLING_SYNC_QUEUE);
}

/**
 * The inbox backlog of one provider, in two queries on the inbox's indexes: events set aside (`abandonedAt` set,
 * not processed; index `abandonedAt`), and the oldest event neither processed nor set aside (index
 * `{processedAt, receivedAt}`: `processedAt: null`, sorted by `receivedAt`).
 */
export async function readInboxBacklog(events: Collection<InboxEventDocument>, provider: string): Promise<WebhookBacklogReading> {
  const [setAside, oldest] = await Promise.all([
    events.countDocuments({ abandonedAt: { $ne: null }, processedAt: null, provider }),
    events.find({ processedAt: null, abandonedAt: null, provider }, { projection: { _id: 0, receivedAt: 1 } }).sort({ receivedAt: 1 }).limit(1).next(),
  ]);
  return { provider, setAside, oldestUnprocessedReceivedAt: oldest?.receivedAt ?? null };
}
