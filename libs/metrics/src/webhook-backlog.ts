import { systemClock, type Clock } from '@berth/contract';
import { Gauge, type Registry } from 'prom-client';
import { cachedRead } from './cached-read';
import type { MetricsErrorLogger } from './registry-helpers';

/** What the inbox holds back for one provider. */
export interface WebhookBacklogReading {
  provider: string;
  /**
   * Events set aside: `abandonedAt` set, not processed. They are the webhooks' dead letters (no consumer runs
   * them until `retry-abandoned` reopens them).
   */
  setAside: number;
  /** `receivedAt` of the oldest event neither processed nor set aside; null when there is none. */
  oldestUnprocessedReceivedAt: Date | null;
}

/** Options for {@link createWebhookBacklogMetrics}. */
export interface WebhookBacklogMetricsOptions {
  /** Reads the backlog per provider (two indexed queries on the inbox); at scrape time, at most once per `cacheMs`. */
  read: () => Promise<readonly WebhookBacklogReading[]>;
  /**
   * How long a reading serves scrapes (default 15000 ms). The age is computed from the cached `receivedAt` at each
   * scrape, so it keeps growing between reads.
   */
  cacheMs?: number;
  /** What the ages are measured against; defaults to the system clock. */
  clock?: Clock;
  /** Told when a read fails; the scrape then has no series of these two metrics. */
  logger?: MetricsErrorLogger;
}

/**
 * Registers the webhook backlog metrics, read from the MongoDB inbox when `/metrics` is scraped:
 * - `webhook_dlq_depth{provider}`: events set aside (the webhooks' dead letters: an `UnrecoverableError`, or too
 *   many failed attempts), waiting for a person to fix the cause and run `retry-abandoned`.
 * - `webhook_oldest_unprocessed_age_seconds{provider}`: age of the oldest event of the inbox neither processed nor
 *   set aside (0 when there is none); it grows while handlers keep failing or attempts stop without an outcome. The
 *   inbox records an event when its first attempt ends or first renews its lease: messages not claimed yet, and
 *   first attempts still running, show in `queue_depth` instead.
 *
 * Every replica of a consumer reports the same numbers: aggregate with `max by (provider)`.
 */
export function createWebhookBacklogMetrics(registry: Registry, options: WebhookBacklogMetricsOptions): void {
  const read = cachedRead(options.read, options.cacheMs ?? 15000);
  const clock = options.clock ?? systemClock;
  const readOrNothing = async (): Promise<readonly WebhookBacklogReading[]> => {
    try {
      return await read();
    } catch (error) {
      options.logger?.warn({ err: error }, 'Could not read the webhook inbox backlog for /metrics');
      return [];
    }
  };
  new Gauge({
    name: 'webhook_dlq_depth',
    help: "Webhook events set aside in the inbox (abandonedAt set, not processed): the webhooks' dead letters",
    labelNames: ['provider'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const reading of await readOrNothing()) this.labels(reading.provider).set(reading.setAside);
    },
  });
  new Gauge({
    name: 'webhook_oldest_unprocessed_age_seconds',
    help: 'Age of the oldest webhook event in the inbox that is neither processed nor set aside (0 when none)',
    labelNames: ['provider'],
    registers: [registry],
    async collect() {
      this.reset();
      const now = clock.now().getTime();
      for (const reading of await readOrNothing()) {
        const oldest = reading.oldestUnprocessedReceivedAt;
        this.labels(reading.provider).set(oldest ? Math.max(0, (now - oldest.getTime()) / 1000) : 0);
      }
    },
  });
}
