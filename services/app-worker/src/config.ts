import { z } from 'zod';
import {
  commonEnvSchema,
  healthEnvFields,
  lifecycleEnvFields,
  mongoDatabaseName,
  parseEnv,
  positiveInt,
} from '@berth/config';

/** The queue worker's settings, parsed from the environment by {@link loadAppWorkerConfig}. */
export interface AppWorkerConfig {
  /** `jetstream` in every deployment; `sync` runs jobs inside `add` (integration tests). */
  readonly messageQueueDriver: 'jetstream' | 'sync';
  readonly natsUrl: string;
  readonly mongoUrl: string;
  readonly mongoDb: string;
  readonly logLevel: string;
  readonly logFormat?: 'json' | 'pretty';
  /** Jobs one worker process runs at once, per queue. */
  readonly queueConcurrency: number;
  /** How long SIGTERM waits for running jobs before the process exits (`SHUTDOWN_GRACE_MS`). */
  readonly shutdownGraceMs: number;
  /** Seats of a workspace whose billing state has no live subscription. */
  readonly freePlanSeatLimit: number;
  readonly otlpEndpoint?: string;
  readonly serviceName: string;
  /** `/healthz`, `/readyz` and `/metrics` listen here (0: a free port). */
  readonly healthPort: number;
  readonly healthHost: string;
  /** Replicas of the job streams and KV buckets this worker creates or updates (`STREAM_REPLICAS`: 1, 3 on a cluster). */
  readonly streamReplicas: number;
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
    natsUrl: parsed.NATS_URL,
    mongoUrl: parsed.MONGO_URL,
    mongoDb: mongoDatabaseName(parsed),
    logLevel: parsed.LOG_LEVEL,
    logFormat: parsed.LOG_FORMAT,
    queueConcurrency: parsed.QUEUE_CONCURRENCY,
    shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS,
    freePlanSeatLimit: parsed.FREE_PLAN_SEAT_LIMIT,
    otlpEndpoint: parsed.OTEL_EXPORTER_OTLP_ENDPOINT,
    serviceName: parsed.OTEL_SERVICE_NAME ?? 'app-worker',
    healthPort: parsed.HEALTH_PORT,
    healthHost: parsed.HEALTH_HOST,
    streamReplicas: parsed.STREAM_REPLICAS,
  };
}
