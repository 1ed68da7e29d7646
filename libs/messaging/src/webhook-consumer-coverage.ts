import type { JetStreamManager } from '@nats-io/jetstream';
import { ALL_WEBHOOKS_SUBJECT, STREAMS } from '@berth/contract';

/** The stream the gateway stores every provider's events in. */
const WEBHOOKS = STREAMS.webhooks;

/** Which durable consumers read one provider's events, and how many of its messages the stream holds. */
export interface WebhookProviderCoverage {
  provider: string;
  /** Durable consumers of `WEBHOOKS` whose filter takes every subject of the provider (`webhooks.<provider>.>`). */
  consumers: string[];
  /** Messages stored on `webhooks.<provider>.>` now. */
  storedMessages: number;
}

/**
 * True when a consumer with these filter subjects receives every event of `provider`: one filter is
 * `webhooks.<provider>.>`, `webhooks.*.>`, `webhooks.>` or `>`. A filter on some of its types only
 * (`webhooks.github.push`) does not count: the other types would wait unhandled.
 */
export function consumerCoversProvider(filterSubjects: readonly string[], provider: string): boolean {
  return filterSubjects.some((filter) => {
    const tokens = filter.split('.');
    const wanted = ['webhooks', provider];
    for (let index = 0; index < wanted.length; index += 1) {
      if (tokens[index] === '>') return tokens.length === index + 1;
      if (tokens[index] !== '*' && tokens[index] !== wanted[index]) return false;
    }
    return tokens.length === 3 && tokens[2] === '>';
  });
}

/**
 * For each provider, the durable consumers of `WEBHOOKS` that receive all its events, and its stored messages.
 * `providers` are the ones to report (the gateway's configured providers); every provider with messages stored
 * is reported too, so a provider the gateway stores events for and nobody reads shows up. For `berth webhooks
 * providers` and the gateway's start-up check.
 */
export async function webhookProviderCoverage(
  jsm: JetStreamManager,
  providers: readonly string[] = [],
): Promise<WebhookProviderCoverage[]> {
  const info = await jsm.streams.info(WEBHOOKS, { subjects_filter: ALL_WEBHOOKS_SUBJECT });
  const stored = new Map<string, number>();
  for (const [subject, count] of Object.entries(info.state.subjects ?? {})) {
    const provider = subject.split('.')[1];
    if (provider) stored.set(provider, (stored.get(provider) ?? 0) + count);
  }
  const consumers = await jsm.consumers.list(WEBHOOKS).next();
  const names = [...new Set([...providers, ...stored.keys()])].sort();
  return names.map((provider) => ({
    provider,
    consumers: consumers
      .filter(
        (consumer) =>
          consumer.config.durable_name &&
          consumerCoversProvider(
            consumer.config.filter_subjects ?? (consumer.config.filter_subject ? [consumer.config.filter_subject] : []),
            provider,
          ),
      )
      .map((consumer) => consumer.name)
      .sort(),
    storedMessages: stored.get(provider) ?? 0,
  }));
}

/** The providers among `providers` that no durable consumer of `WEBHOOKS` reads in full. */
export async function webhookProvidersWithoutConsumer(
  jsm: JetStreamManager,
  providers: readonly string[],
): Promise<string[]> {
  if (providers.length === 0) return [];
  const coverage = await webhookProviderCoverage(jsm, providers);
  return coverage
    .filter((entry) => providers.includes(entry.provider) && entry.consumers.length === 0)
    .map((entry) => entry.provider);
}
