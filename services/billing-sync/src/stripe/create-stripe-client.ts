import Stripe from 'stripe';

/** The `host`/`port`/`protocol` options of the `stripe` client for an API base URL. */
export interface StripeHostOptions {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

/** Parses an API base URL such as `http://127.0.0.1:12111` into the `stripe` client's connection options. */
export function stripeHostOptions(apiBase: string): StripeHostOptions {
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
}

/**
 * What {@link createStripeClient} needs: billing-sync's `STRIPE_SECRET_KEY`, `STRIPE_API_BASE` and
 * `STRIPE_TIMEOUT_MS`.
 */
export interface StripeClientConfig {
  readonly stripeSecretKey: string;
  readonly stripeApiBase?: string;
  readonly stripeTimeoutMs: number;
}

/**
 * The Stripe client billing-sync reads with. `maxNetworkRetries: 0`: a failed call fails the attempt at once and
 * JetStream's backoff does the retrying, so every try is counted in the inbox's `attempts` and visible in the logs.
 */
export function createStripeClient(config: StripeClientConfig): Stripe {
  return new Stripe(config.stripeSecretKey, {
    ...(config.stripeApiBase ? stripeHostOptions(config.stripeApiBase) : {}),
    maxNetworkRetries: 0,
    timeout: config.stripeTimeoutMs,
    telemetry: false,
    appInfo: { name: 'berth-billing-sync' },
  });
}
