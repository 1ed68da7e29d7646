import { Registry, collectDefaultMetrics } from 'prom-client';

/** Options for {@link createMetricsRegistry}. */
export interface MetricsRegistryOptions {
  /** Also collect prom-client's process metrics (CPU, memory, event loop lag, handles); services' `main.ts` do. */
  processMetrics?: boolean;
  /** Labels on every series of this registry (rarely needed: Prometheus adds the pod's). */
  defaultLabels?: Record<string, string>;
}

/**
 * A registry for one process (never prom-client's global one, so several apps can live in one test process), to
 * pass to the metric factories of this library and render on `/metrics`.
 */
export function createMetricsRegistry(options: MetricsRegistryOptions = {}): Registry {
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  return registry;
}
