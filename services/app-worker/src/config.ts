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
  positiveInt,
  type CommonConfig,
  type HealthConfig,
  type LifecycleConfig,
  type MongoConfig,
} from '@berth/config';

/** The queue worker's settings, parsed from the environment by {@link loadAppWorkerConfig}. */
export interface AppWorkerConfig extends CommonConfig, MongoConfig, HealthConfig, LifecycleConfig {
  /** `jetstream` in every deployment; `sync` runs jobs inside `add` (integration tests). */
  readonly messageQueueDriver: 'jetstream' | 'sync';
  /** Jobs one worker process runs at once, per queue. */
  readonly queueConcurrency: number;
  /** Seats of a workspace whose billing state has no live subscription. */
  readonly freePlanSeatLimit: number;
}

/** Every variable the worker reads. */
const appWorkerEnvSchema = commonEnvSchema.extend({
  MESSAGE_QUEUE_DRIVER: z.enum(['jetstream', 'sync']).default('jetstream'),
  QUEUE_CONCURRENCY: positiveInt(8),
  /**
   * `SHUTDOWN_GRACE_MS` (25 s) and `STREAM_REPLICAS`, named as in every service; `WORKER_SHUTDOWN_GRACE_MS`, the older
   * name, is read when `SHUTDOWN_GRACE_MS` is unset (see {@link loadAppWorkerConfig}).
   */
  ...lifecycleEnvFields(25_000),
  FREE_PLAN_SEAT_LIMIT: z.coerce.number().int().min(0).default(1),
  ...healthEnvFields(9466),
});

/** Validates the worker's environment (the process's own unless a map is given); throws naming every bad variable. */
export function loadAppWorkerConfig(env: Record<string, string | undefined> = process.env): AppWorkerConfig {
  const grace = env.SHUTDOWN_GRACE_MS ?? env.WORKER_SHUTDOWN_GRACE_MS;
  const parsed = parseEnv(appWorkerEnvSchema, { ...env, SHUTDOWN_GRACE_MS: grace });
  return {
    messageQueueDriver: parsed.MESSAGE_QUEUE_DRIVER,
    ...commonConfig(parsed, 'app-worker'),
    ...mongoConfig(parsed),
    ...healthConfig(parsed),
    ...lifecycleConfig(parsed),
    queueConcurrency: parsed.QUEUE_CONCURRENCY,
    freePlanSeatLimit: parsed.FREE_PLAN_SEAT_LIMIT,
  };
}
