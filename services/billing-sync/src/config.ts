import { z } from 'zod';
import {
  commonConfig,
  commonEnvSchema,
  mongoConfig,
  parseEnv,
  positiveInt,
  webhookConsumerConfig,
  webhookConsumerEnvFields,
  type CommonConfig,
  type MongoConfig,
  type WebhookConsumerConfig,
} from '@berth/config';

/**
 * The health and metrics port when `HEALTH_PORT` is unset (the Prometheus exporter convention), whatever `NODE_ENV`
 * says; tests that run services side by side pass `HEALTH_PORT=0` (a free port, logged in the ready line).
 */
export const DEFAULT_HEALTH_PORT = 9464;

/** billing-sync's environment: the common variables plus Stripe and its consumer's sizing. */
export const billingSyncEnvSchema = commonEnvSchema.extend({
  /** Secret key (`sk_…` or restricted `rk_…` with read access to customers, subscriptions, disputes, refunds, Radar). */
  STRIPE_SECRET_KEY: z.string().min(1),
  /** Another Stripe API base, e.g. the local stand-in `http://127.0.0.1:12111`; unset → api.stripe.com. */
  STRIPE_API_BASE: z.url().optional(),
  /** Per Stripe request; a timeout fails the attempt and JetStream retries it. */
  STRIPE_TIMEOUT_MS: positiveInt(20000),
  /** Events handled at once by one replica. */
  BILLING_SYNC_CONCURRENCY: positiveInt(16),
  /** JetStream ack wait of the `billing-sync` consumer; running handlers send `working()` meanwhile. */
  BILLING_SYNC_ACK_WAIT_MS: positiveInt(30000),
  /** How long a workspace's billing lock holds; more than a sync's Stripe calls can take. */
  WORKSPACE_LOCK_MS: positiveInt(30000),
  /** How long a handler waits for a workspace lock held by another sync before asking JetStream to retry later. */
  WORKSPACE_LOCK_WAIT_MS: positiveInt(3000),
  /**
   * `INBOX_LEASE_MS`, `SHUTDOWN_GRACE_MS`, `HEALTH_PORT` ({@link DEFAULT_HEALTH_PORT}), `HEALTH_HOST`,
   * `METRICS_READ_CACHE_MS` and `STREAM_REPLICAS`: the replicas of what billing-sync creates in JetStream when absent
   * (stream `WEBHOOKS`, and the job streams and deduplication bucket it queues `ApplyWorkspaceMemberLimitJob` through).
   */
  ...webhookConsumerEnvFields({ healthPort: DEFAULT_HEALTH_PORT }),
});

/** billing-sync's settings, parsed and validated from the environment by {@link loadConfig}. */
export interface BillingSyncConfig extends CommonConfig, MongoConfig, WebhookConsumerConfig {
  /** `STRIPE_SECRET_KEY`. */
  readonly stripeSecretKey: string;
  /** `STRIPE_API_BASE`; unset: api.stripe.com. */
  readonly stripeApiBase?: string;
  /** Per Stripe request (`STRIPE_TIMEOUT_MS`). */
  readonly stripeTimeoutMs: number;
  /** Events handled at once by one replica (`BILLING_SYNC_CONCURRENCY`). */
  readonly concurrency: number;
  /** JetStream ack wait of the `billing-sync` consumer (`BILLING_SYNC_ACK_WAIT_MS`). */
  readonly ackWaitMs: number;
  /** How long a workspace's billing lock holds (`WORKSPACE_LOCK_MS`). */
  readonly workspaceLockMs: number;
  /** How long a handler waits for a workspace lock held by another sync (`WORKSPACE_LOCK_WAIT_MS`). */
  readonly workspaceLockWaitMs: number;
}

/**
 * Reads and validates billing-sync's environment. The only place in the service that reads `process.env` (when
 * called without an argument, as `main.ts` does); tests pass a map.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): BillingSyncConfig {
  const parsed = parseEnv(billingSyncEnvSchema, env);
  return {
    ...commonConfig(parsed, 'billing-sync'),
    ...mongoConfig(parsed),
    ...webhookConsumerConfig(parsed),
    stripeSecretKey: parsed.STRIPE_SECRET_KEY,
    stripeApiBase: parsed.STRIPE_API_BASE,
    stripeTimeoutMs: parsed.STRIPE_TIMEOUT_MS,
    concurrency: parsed.BILLING_SYNC_CONCURRENCY,
    ackWaitMs: parsed.BILLING_SYNC_ACK_WAIT_MS,
    workspaceLockMs: parsed.WORKSPACE_LOCK_MS,
    workspaceLockWaitMs: parsed.WORKSPACE_LOCK_WAIT_MS,
  };
}
