import { Counter, Gauge, Histogram } from 'prom-client';
import { getOrCreateMetric, type Registry } from '@berth/metrics';

/** The dispatcher's Prometheus metrics (names after seed 004: `webhook_outbound_*`). */
export interface DispatcherMetrics {
  /** Attempts by outcome: `delivered`, `retry`, `gone`, `refused`. */
  attempts: Counter<'outcome'>;
  /** Deliveries that reached an end: `delivered`, `failed`, `skipped`. */
  deliveries: Counter<'status'>;
  attemptDuration: Histogram<'outcome'>;
  /** Events fanned out, and the deliveries they made. */
  eventsFannedOut: Counter;
  deliveriesQueued: Counter;
  /** Endpoints disabled by the dispatcher: `gone` (410) or `failing` (5 days). */
  endpointsDisabled: Counter<'reason'>;
  /** Alerts raised for an endpoint disabled after failing for days (one per disable). */
  autoDisableAlerts: Counter;
  /** Deliveries queued or in flight per endpoint, read from the endpoint's consumer at scrape time. */
  backlog: Gauge<'endpoint'>;
}

/**
 * Registers the dispatcher's metrics in `registry` (once per registry). `readBacklog` gives the backlog per endpoint
 * at scrape time (cache it: it asks JetStream).
 */
export function createDispatcherMetrics(
  registry: Registry,
  readBacklog?: () => Promise<readonly (readonly [string, number])[]>,
): DispatcherMetrics {
  const registers = [registry];
  return {
    attempts: getOrCreateMetric(
      registry,
      'webhook_outbound_total',
      () =>
        new Counter({
          name: 'webhook_outbound_total',
          help: 'Outbound webhook attempts by outcome',
          labelNames: ['outcome'],
          registers,
        }),
    ),
    deliveries: getOrCreateMetric(
      registry,
      'webhook_outbound_deliveries_total',
      () =>
        new Counter({
          name: 'webhook_outbound_deliveries_total',
          help: 'Outbound deliveries that reached an end, by status',
          labelNames: ['status'],
          registers,
        }),
    ),
    attemptDuration: getOrCreateMetric(
      registry,
      'webhook_outbound_attempt_duration_seconds',
      () =>
        new Histogram({
          name: 'webhook_outbound_attempt_duration_seconds',
          help: 'Duration of outbound webhook attempts',
          labelNames: ['outcome'],
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
          registers,
        }),
    ),
    eventsFannedOut: getOrCreateMetric(
      registry,
      'webhook_outbound_events_fanned_out_total',
      () =>
        new Counter({
          name: 'webhook_outbound_events_fanned_out_total',
          help: 'Outbound events fanned out to their endpoints',
          registers,
        }),
    ),
    deliveriesQueued: getOrCreateMetric(
      registry,
      'webhook_outbound_deliveries_queued_total',
      () =>
        new Counter({
          name: 'webhook_outbound_deliveries_queued_total',
          help: 'Per-endpoint deliveries queued by the fan-out',
          registers,
        }),
    ),
    endpointsDisabled: getOrCreateMetric(
      registry,
      'webhook_outbound_endpoints_disabled_total',
      () =>
        new Counter({
          name: 'webhook_outbound_endpoints_disabled_total',
          help: 'Endpoints disabled by the dispatcher, by reason',
          labelNames: ['reason'],
          registers,
        }),
    ),
    autoDisableAlerts: getOrCreateMetric(
      registry,
      'webhook_outbound_auto_disable_alerts_total',
      () =>
        new Counter({
          name: 'webhook_outbound_auto_disable_alerts_total',
          help: 'Alerts raised for endpoints disabled after failing for days',
          registers,
        }),
    ),
    backlog: getOrCreateMetric(
      registry,
      'webhook_outbound_backlog',
      () =>
        new Gauge({
          name: 'webhook_outbound_backlog',
          help: 'Deliveries queued or in flight per endpoint',
          labelNames: ['endpoint'],
          registers,
          async collect() {
            if (!readBacklog) return;
            try {
              for (const [endpoint, count] of await readBacklog()) this.labels(endpoint).set(count);
            } catch {
              // A failed read leaves the last values; the next scrape tries again.
            }
          },
        }),
    ),
  };
}
