import { z } from 'zod';
import { commonEnvSchema, mongoDatabaseName, parseEnv } from '@berth/config';

const positiveInt = (defaultValue: number) => z.coerce.number().int().positive().default(defaultValue);

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
  /** How long an inbox claim holds without renewal (renewed every third while the handler runs). */
  INBOX_LEASE_MS: positiveInt(60000),
  /** How long a workspace's billing lock holds; more than a sync's Stripe calls can take. */
  WORKSPACE_LOCK_MS: positiveInt(30000),
  /** How long a handler waits for a workspace lock held by another sync before asking JetStream to retry later. */
  WORKSPACE_LOCK_WAIT_MS: positiveInt(3000),
  /** On SIGTERM, how long running handlers may take to finish. */
  SHUTDOWN_GRACE_MS: positiveInt(25000),
  /**
   * Port of `/healthz`, `/readyz` and `/metrics`. Unset: {@link DEFAULT_HEALTH_PORT}, or 0 (a free port, logged in
   * the ready line) when `NODE_ENV=test`, because tests run many services side by side on one machine.
   */
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  HEALTH_HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * Replicas of what billing-sync creates in JetStream when absent: stream `WEBHOOKS`, and the job streams and
   * deduplication bucket it queues `ApplyWorkspaceMemberLimitJob` through (1; 3 on a three-node cluster).
   */
  STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** How long one reading of the consumer's info and of the inbox backlog serves `/metrics` scrapes. */
  METRICS_READ_CACHE_MS: z.coerce.number().int().min(0).default(5000),
});

/** The health and metrics port when `HEALTH_PORT` is unset (the Prometheus exporter convention). */
export const DEFAULT_HEALTH_PORT = 9464;

/** billing-sync's validated configuration. */
export type BillingSyncConfig = Omit<z.infer<typeof billingSyncEnvSchema>, 'HEALTH_PORT' | 'MONGO_DB'> & {
  HEALTH_PORT: number;
  MONGO_DB: string;
};

/**
 * Reads and validates billing-sync's environment. The only place in the service that reads `process.env` (when
 * called without an argument, as `main.ts` does); tests pass a map.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): BillingSyncConfig {
  const parsed = parseEnv(billingSyncEnvSchema, env);
  const { MONGO_DB: _override, ...rest } = parsed;
  return {
    ...rest,
    MONGO_DB: mongoDatabaseName(parsed),
    HEALTH_PORT: parsed.HEALTH_PORT ?? (parsed.NODE_ENV === 'test' ? 0 : DEFAULT_HEALTH_PORT),
  };
}
