import type { Metric, Registry } from 'prom-client';

/**
 * The metric `name` of `registry` if something registered it already (two parts of one process sharing a
 * registry, e.g. a job producer and a worker), else the one `create` makes. Its labels and buckets are the first
 * creator's.
 */
export function getOrCreateMetric<M extends Metric>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}

/** Where a metric factory reports a failed scrape-time read (a pino logger fits). */
export interface MetricsErrorLogger {
  warn(fields: object, message: string): void;
}
