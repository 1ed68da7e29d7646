import { z } from 'zod';

/** A whole number above 0, with a default: sizes, concurrencies, durations in ms. One schema for every service. */
export const positiveInt = (defaultValue: number) => z.coerce.number().int().positive().default(defaultValue);

/** A TCP port, 0 (a free one, picked at listen and logged) to 65535, with a default. */
export const portNumber = (defaultValue: number) => z.coerce.number().int().min(0).max(65535).default(defaultValue);

/**
 * `STREAM_REPLICAS`: replicas of the JetStream streams and KV buckets a service creates when they are absent (1; 3 on
 * a three-node cluster). Every service reads it with this one schema.
 */
export const streamReplicas = z.coerce.number().int().min(1).max(5).default(1);

/**
 * `HEALTH_PORT` and `HEALTH_HOST` (`0.0.0.0`) of a service's `/healthz`, `/readyz` and `/metrics`. The default port is
 * the service's own and does not depend on `NODE_ENV`: tests that run services side by side pass `HEALTH_PORT=0`.
 */
export const healthEnvFields = (defaultPort: number) => ({
  HEALTH_PORT: portNumber(defaultPort),
  HEALTH_HOST: z.string().min(1).default('0.0.0.0'),
});

/**
 * The lifecycle variables every long-running service reads: `SHUTDOWN_GRACE_MS` (after SIGTERM, how long running work
 * may take to finish; the service's default) and `STREAM_REPLICAS`. Spread into `commonEnvSchema.extend({...})`.
 */
export const lifecycleEnvFields = (shutdownGraceMs: number) => ({
  SHUTDOWN_GRACE_MS: positiveInt(shutdownGraceMs),
  STREAM_REPLICAS: streamReplicas,
});

/**
 * The variables of a service that consumes webhooks through the inbox (billing-sync, identity-sync), named and
 * defaulted alike in both: `INBOX_LEASE_MS` (60 s: how long an inbox claim holds without renewal, renewed every third
 * while the handler runs), `SHUTDOWN_GRACE_MS` (25 s: how long running handlers may take to finish after SIGTERM),
 * `STREAM_REPLICAS`, `HEALTH_PORT` (the service's default), `HEALTH_HOST`, and `METRICS_READ_CACHE_MS` (5 s: how long
 * one reading of the consumer's info and of the inbox backlog serves `/metrics` scrapes).
 */
export const webhookConsumerEnvFields = (defaults: { healthPort: number }) => ({
  INBOX_LEASE_MS: positiveInt(60_000),
  ...lifecycleEnvFields(25_000),
  ...healthEnvFields(defaults.healthPort),
  METRICS_READ_CACHE_MS: z.coerce.number().int().min(0).default(5000),
});
