import { Counter, Histogram, Registry } from 'prom-client';

/** How one `POST /webhooks/:provider` request ended; the `outcome` label of `webhook_inbound_total`. */
export const INBOUND_OUTCOMES = [
  'accepted',
  'duplicate',
  'ignored',
  'invalid_signature',
  'rate_limited',
  'too_large',
  'body_timeout',
  'invalid_event',
  'unavailable',
  'not_found',
] as const;

/** One of {@link INBOUND_OUTCOMES}. */
export type InboundOutcome = (typeof INBOUND_OUTCOMES)[number];

/** Provider label for a path segment that names no provider the gateway knows (keeps label cardinality bounded). */
export const UNKNOWN_PROVIDER_LABEL = 'unknown';

/** Options for {@link createGatewayMetrics}. */
export interface GatewayMetricsOptions {
  /** Provider names to pre-create label sets for (all known providers, plus `unknown`). */
  readonly providerNames: readonly string[];
  /** Where to register: the service shell's registry, which serves `/metrics`; default a registry of its own. */
  readonly registry?: Registry;
}

/**
 * The gateway's Prometheus metrics, in the registry given or in one of its own (never prom-client's global one, so
 * several apps can live in one test process):
 * - `webhook_inbound_total{provider,outcome}`: one per webhook request, by how it ended (a batch counts once).
 * - `webhook_publish_duration_seconds{provider}`: time from publish to PubAck, per event.
 */
export class GatewayMetrics {
  readonly registry: Registry;
  private readonly inbound: Counter<'provider' | 'outcome'>;
  private readonly publishDuration: Histogram<'provider'>;
  /** Label children bound once, so the hot path does no label hashing. */
  private readonly inboundByProvider = new Map<string, Record<InboundOutcome, { inc(): void }>>();
  private readonly publishDurationByProvider = new Map<string, { observe(value: number): void }>();

  constructor(options: GatewayMetricsOptions) {
    this.registry = options.registry ?? new Registry();
    this.inbound = new Counter({
      name: 'webhook_inbound_total',
      help: 'Webhook requests received, by provider and outcome',
      labelNames: ['provider', 'outcome'],
      registers: [this.registry],
    });
    this.publishDuration = new Histogram({
      name: 'webhook_publish_duration_seconds',
      help: 'Time from publishing a verified webhook event to its JetStream PubAck',
      labelNames: ['provider'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    for (const provider of new Set([...options.providerNames, UNKNOWN_PROVIDER_LABEL])) {
      const byOutcome = Object.fromEntries(
        INBOUND_OUTCOMES.map((outcome) => {
          const child = this.inbound.labels(provider, outcome);
          child.inc(0); // every series exists from the start, so rate() and alerts see the first request
          return [outcome, child];
        }),
      );
      this.inboundByProvider.set(provider, byOutcome as Record<InboundOutcome, { inc(): void }>);
      this.publishDurationByProvider.set(provider, this.publishDuration.labels(provider));
    }
  }

  /** Counts one webhook request; `provider` must be a known name or {@link UNKNOWN_PROVIDER_LABEL}. */
  countInbound(provider: string, outcome: InboundOutcome): void {
    (this.inboundByProvider.get(provider) ?? this.inboundByProvider.get(UNKNOWN_PROVIDER_LABEL))![outcome].inc();
  }

  /** Records one publish's duration in seconds. */
  observePublish(provider: string, seconds: number): void {
    this.publishDurationByProvider.get(provider)?.observe(seconds);
  }

  /** The Prometheus text exposition of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** The `Content-Type` of {@link render}'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
