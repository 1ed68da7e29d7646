import type { CommonEnv } from './common';
import { mongoDatabaseName } from './common';

/**
 * The common variables as every service's configuration object carries them: camelCase, parsed once by its
 * `src/config.ts`, so that the rest of the service reads `config.natsUrl`, never `NATS_URL`.
 */
export interface CommonConfig {
  /** `NATS_URL`. */
  readonly natsUrl: string;
  /** `LOG_LEVEL`. */
  readonly logLevel: CommonEnv['LOG_LEVEL'];
  /** `LOG_FORMAT`; unset: pretty on a terminal, JSON otherwise. */
  readonly logFormat?: 'json' | 'pretty';
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`; tracing is off when unset. */
  readonly otlpEndpoint?: string;
  /** `OTEL_SERVICE_NAME`, else the service's name: `service.name` on spans. */
  readonly serviceName: string;
}

/** Where a service that uses MongoDB finds it: `MONGO_URL`, and the database {@link mongoDatabaseName} decides. */
export interface MongoConfig {
  readonly mongoUrl: string;
  readonly mongoDb: string;
}

/** `HEALTH_PORT` and `HEALTH_HOST`, parsed by `healthEnvFields`. */
export interface HealthConfig {
  readonly healthPort: number;
  readonly healthHost: string;
}

/** `SHUTDOWN_GRACE_MS` and `STREAM_REPLICAS`, parsed by `lifecycleEnvFields`. */
export interface LifecycleConfig {
  /** After SIGTERM, how long running work may take to finish. */
  readonly shutdownGraceMs: number;
  /** Replicas of the streams and KV buckets the service creates or updates at start. */
  readonly streamReplicas: number;
}

/** The common variables of a parsed environment as a {@link CommonConfig}; `service` names spans when unset. */
export function commonConfig(parsed: CommonEnv, service: string): CommonConfig {
  return {
    natsUrl: parsed.NATS_URL,
    logLevel: parsed.LOG_LEVEL,
    logFormat: parsed.LOG_FORMAT,
    otlpEndpoint: parsed.OTEL_EXPORTER_OTLP_ENDPOINT,
    serviceName: parsed.OTEL_SERVICE_NAME ?? service,
  };
}

/** `MONGO_URL` and the database the service uses (`MONGO_DB`, else the URL's, else `berth`). */
export function mongoConfig(parsed: { MONGO_URL: string; MONGO_DB?: string }): MongoConfig {
  return { mongoUrl: parsed.MONGO_URL, mongoDb: mongoDatabaseName(parsed) };
}

/** The parsed `healthEnvFields` as a {@link HealthConfig}. */
export function healthConfig(parsed: { HEALTH_PORT: number; HEALTH_HOST: string }): HealthConfig {
  return { healthPort: parsed.HEALTH_PORT, healthHost: parsed.HEALTH_HOST };
}

/** The parsed `lifecycleEnvFields` as a {@link LifecycleConfig}. */
export function lifecycleConfig(parsed: { SHUTDOWN_GRACE_MS: number; STREAM_REPLICAS: number }): LifecycleConfig {
  return { shutdownGraceMs: parsed.SHUTDOWN_GRACE_MS, streamReplicas: parsed.STREAM_REPLICAS };
}

/** The parsed `webhookConsumerEnvFields` of billing-sync and identity-sync, camelCase. */
export interface WebhookConsumerConfig extends HealthConfig, LifecycleConfig {
  /** How long an inbox claim holds without renewal (`INBOX_LEASE_MS`). */
  readonly inboxLeaseMs: number;
  /** How long one reading of the consumer's info and the inbox backlog serves `/metrics` (`METRICS_READ_CACHE_MS`). */
  readonly metricsReadCacheMs: number;
}

/** The parsed `webhookConsumerEnvFields` as a {@link WebhookConsumerConfig}. */
export function webhookConsumerConfig(parsed: {
  INBOX_LEASE_MS: number;
  METRICS_READ_CACHE_MS: number;
  SHUTDOWN_GRACE_MS: number;
  STREAM_REPLICAS: number;
  HEALTH_PORT: number;
  HEALTH_HOST: string;
}): WebhookConsumerConfig {
  return {
    inboxLeaseMs: parsed.INBOX_LEASE_MS,
    metricsReadCacheMs: parsed.METRICS_READ_CACHE_MS,
    ...lifecycleConfig(parsed),
    ...healthConfig(parsed),
  };
}
