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

/** identity-sync's environment: the common variables plus its consumer's sizing. */
export const identitySyncEnvSchema = commonEnvSchema.extend({
  /** Events handled at once by one replica. */
  IDENTITY_SYNC_CONCURRENCY: positiveInt(16),
  /** JetStream ack wait of the `identity-sync` consumer; running handlers send `working()` meanwhile. */
  IDENTITY_SYNC_ACK_WAIT_MS: positiveInt(30000),
  /**
   * `INBOX_LEASE_MS`, `SHUTDOWN_GRACE_MS`, `HEALTH_PORT` ({@link DEFAULT_HEALTH_PORT}), `HEALTH_HOST`,
   * `METRICS_READ_CACHE_MS` and `STREAM_REPLICAS` (of stream `WEBHOOKS` when identity-sync has to create it).
   */
  ...webhookConsumerEnvFields({ healthPort: DEFAULT_HEALTH_PORT }),
});

/** identity-sync's settings, parsed and validated from the environment by {@link loadConfig}. */
export interface IdentitySyncConfig extends CommonConfig, MongoConfig, WebhookConsumerConfig {
  /** Events handled at once by one replica (`IDENTITY_SYNC_CONCURRENCY`). */
  readonly concurrency: number;
  /** JetStream ack wait of the `identity-sync` consumer (`IDENTITY_SYNC_ACK_WAIT_MS`). */
  readonly ackWaitMs: number;
}

/**
 * Reads and validates identity-sync's environment. The only place in the service that reads `process.env` (when
 * called without an argument, as `main.ts` does); tests pass a map.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): IdentitySyncConfig {
  const parsed = parseEnv(identitySyncEnvSchema, env);
  return {
    ...commonConfig(parsed, 'identity-sync'),
    ...mongoConfig(parsed),
    ...webhookConsumerConfig(parsed),
    concurrency: parsed.IDENTITY_SYNC_CONCURRENCY,
    ackWaitMs: parsed.IDENTITY_SYNC_ACK_WAIT_MS,
  };
}
