import { systemClock, type Clock } from '@berth/contract';
import { Gauge } from 'prom-client';
import { cachedRead, getOrCreateMetric, type MetricsErrorLogger, type Registry } from '@berth/metrics';
import { readOutboxBacklog, type OutboxBacklogReading } from './read-outbox-backlog';
import type { OutboxCollection } from './outbox-types';

/** Options of {@link createOutboxMetrics}. */
export interface OutboxMetricsOptions {
  /** The collections the relay watches. */
  collections: readonly OutboxCollection[];
  /** How long one reading serves scrapes; 15 000 ms by default. The age keeps growing between readings. */
  cacheMs?: number;
  clock?: Clock;
  /** Told when a reading fails; the scrape then has no series of these metrics. */
  logger?: MetricsErrorLogger;
}

/**
 * Registers the outbox metrics, read from the business collections when `/metrics` is scraped (seed 004's
 * `webhook_outbox_pending`):
 * - `webhook_outbox_pending{collection}`: documents with pending entries;
 * - `webhook_outbox_oldest_pending_age_seconds{collection}`: age of the oldest pending entry, 0 when none.
 * Every replica reports the same numbers: aggregate with `max by (collection)`.
 */
export function createOutboxMetrics(registry: Registry, options: OutboxMetricsOptions): void {
  const read = cachedRead(() => readOutboxBacklog(options.collections), options.cacheMs ?? 15_000);
  const clock = options.clock ?? systemClock;
  const readOrNothing = async (): Promise<OutboxBacklogReading[]> => {
    try {
      return await read();
    } catch (error) {
      options.logger?.warn({ err: error }, 'Could not read the outbox backlog for /metrics');
      return [];
    }
  };
  const registers = [registry];
  getOrCreateMetric(
    registry,
    'webhook_outbox_pending',
    () =>
      new Gauge({
        name: 'webhook_outbox_pending',
        help: 'Business documents holding outbox entries not yet sent',
        labelNames: ['collection'],
        registers,
        async collect() {
          this.reset();
          for (const reading of await readOrNothing()) this.labels(reading.collection).set(reading.pendingDocuments);
        },
      }),
  );
  getOrCreateMetric(
    registry,
    'webhook_outbox_oldest_pending_age_seconds',
    () =>
      new Gauge({
        name: 'webhook_outbox_oldest_pending_age_seconds',
        help: 'Age of the oldest outbox entry not yet sent (0 when none)',
        labelNames: ['collection'],
        registers,
        async collect() {
          this.reset();
          const now = clock.now().getTime();
          for (const reading of await readOrNothing()) {
            this.labels(reading.collection).set(
              reading.oldestPendingAt ? Math.max(0, (now - reading.oldestPendingAt.getTime()) / 1000) : 0,
            );
          }
        },
      }),
  );
}
