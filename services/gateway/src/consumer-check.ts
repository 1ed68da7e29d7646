import type { JetStreamManager } from '@nats-io/jetstream';
import type { BerthLogger } from '@berth/logger';
import { webhookProvidersWithoutConsumer } from '@berth/messaging';
import type { ProviderConfig } from './config';

/** Options for {@link waitForProviderConsumers}. */
export interface WaitForProviderConsumersOptions {
  jsm: JetStreamManager;
  providers: readonly ProviderConfig[];
  /** How long to wait for the workers (they may start after the gateway). */
  waitMs: number;
  logger: BerthLogger;
  /** Between two looks at the consumers (default 1 s). */
  intervalMs?: number;
}

/**
 * Waits until every provider that is not store-only has a durable consumer on `WEBHOOKS` reading all its events
 * (a worker with its `@WebhookProcessor`, billing-sync, identity-sync: each creates its consumer at start), so no
 * provider's events are stored for nobody. The consumers are durable: once created, events wait for them even
 * while their workers are down, so the gateway need not wait for a worker to be running now.
 *
 * @throws Error naming the providers still without a consumer after `waitMs`, and the two ways out.
 */
export async function waitForProviderConsumers(options: WaitForProviderConsumersOptions): Promise<void> {
  const required = options.providers.filter((provider) => !provider.storeOnly).map((provider) => provider.name);
  const storeOnly = options.providers.filter((provider) => provider.storeOnly).map((provider) => provider.name);
  const unread = await webhookProvidersWithoutConsumer(options.jsm, storeOnly);
  if (unread.length > 0)
    options.logger.warn(
      { providers: unread },
      `Storing the events of ${unread.join(', ')} for no consumer (store-only): they expire with the stream's max age unless a worker handles them`,
    );
  const deadline = Date.now() + options.waitMs;
  let logged = false;
  for (;;) {
    const missing = await webhookProvidersWithoutConsumer(options.jsm, required);
    if (missing.length === 0) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `No consumer reads the events of ${missing.join(', ')}: start the worker that handles them (a @WebhookProcessor({ provider }) in a module it imports), ` +
          `or store them only (WEBHOOK_STORE_ONLY_PROVIDERS, or "storeOnly": true in WEBHOOK_PROVIDERS)`,
      );
    }
    if (!logged)
      options.logger.info(
        { providers: missing, waitMs: options.waitMs },
        `Waiting for a consumer of ${missing.join(', ')}`,
      );
    logged = true;
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(options.intervalMs ?? 1000, Math.max(0, deadline - Date.now()))),
    );
  }
}
