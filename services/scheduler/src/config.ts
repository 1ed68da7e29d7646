import { z } from 'zod';
import {
  commonConfig,
  commonEnvSchema,
  healthConfig,
  healthEnvFields,
  lifecycleConfig,
  lifecycleEnvFields,
  mongoConfig,
  parseEnv,
  type CommonConfig,
  type HealthConfig,
  type LifecycleConfig,
  type MongoConfig,
} from '@berth/config';

/** The scheduler's settings, parsed and validated from the environment by {@link loadConfig}. */
export interface SchedulerConfig extends CommonConfig, MongoConfig, HealthConfig, LifecycleConfig {
  /** Leader lease lifetime; a failover takes at most about this long. */
  readonly leaseTtlMs: number;
  /** Longest sleep of the tick loop (it wakes earlier for a due tick): how soon a new schedule is noticed. */
  readonly tickIntervalMs: number;
  /**
   * How late a tick may be and still be emitted on its own (2 × lease TTL + tick interval); older missed ticks are
   * collapsed into the latest one (catch up once).
   */
  readonly graceMs: number;
  /** The retention cron deletes processed webhook events older than this many days. */
  readonly webhookEventRetentionDays: number;
  /** Where the recovery cron posts its alert for an event set aside (Slack or any webhook); unset: log and metric only. */
  readonly alertWebhookUrl?: string;
}

/** Every variable the scheduler reads. */
const schedulerEnvSchema = commonEnvSchema
  .extend({
    SCHEDULER_LEASE_TTL_MS: z.coerce
      .number()
      .int()
      .min(2000, 'at least 2000 (the server counts TTLs in whole seconds)')
      .default(10_000),
    SCHEDULER_TICK_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
    ...healthEnvFields(9464),
    // 15 s, within Kubernetes' 30 s grace period.
    ...lifecycleEnvFields(15_000),
    WEBHOOK_EVENT_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
    // Empty means unset (compose passes the host's value through, possibly empty).
    ALERT_WEBHOOK_URL: z.preprocess((value) => (value === '' ? undefined : value), z.url().optional()),
  })
  .refine((env) => env.SCHEDULER_TICK_INTERVAL_MS * 2 <= env.SCHEDULER_LEASE_TTL_MS, {
    message: 'SCHEDULER_TICK_INTERVAL_MS must be at most half of SCHEDULER_LEASE_TTL_MS',
    path: ['SCHEDULER_TICK_INTERVAL_MS'],
  });

/**
 * Reads the scheduler's configuration from an environment map (`process.env` in `main.ts`, a literal in tests):
 * `NATS_URL`, `LOG_LEVEL`, `LOG_FORMAT`, `SCHEDULER_LEASE_TTL_MS` (10000), `SCHEDULER_TICK_INTERVAL_MS` (1000),
 * `HEALTH_PORT` (9464), `HEALTH_HOST` (0.0.0.0), `SHUTDOWN_GRACE_MS` (15000), `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_SERVICE_NAME`, `STREAM_REPLICAS` (1), and
 * for the platform crons `MONGO_URL`, `MONGO_DB` (berth), `WEBHOOK_EVENT_RETENTION_DAYS` (30), `ALERT_WEBHOOK_URL`.
 *
 * @throws ConfigError naming every invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined>): SchedulerConfig {
  const parsed = parseEnv(schedulerEnvSchema, env);
  return {
    ...commonConfig(parsed, 'scheduler'),
    ...mongoConfig(parsed),
    ...healthConfig(parsed),
    ...lifecycleConfig(parsed),
    leaseTtlMs: parsed.SCHEDULER_LEASE_TTL_MS,
    tickIntervalMs: parsed.SCHEDULER_TICK_INTERVAL_MS,
    graceMs: 2 * parsed.SCHEDULER_LEASE_TTL_MS + parsed.SCHEDULER_TICK_INTERVAL_MS,
    webhookEventRetentionDays: parsed.WEBHOOK_EVENT_RETENTION_DAYS,
    alertWebhookUrl: parsed.ALERT_WEBHOOK_URL,
  };
}
