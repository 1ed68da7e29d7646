import { MongoClient } from 'mongodb';
import { Counter, type Registry } from 'prom-client';
import { WEBHOOK_SET_ASIDE_COUNTER } from '@berth/inbox';
import type { CronBuckets } from '@berth/cron';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import type { SchedulerConfig } from '../config';
import { createInboxOperations } from './inbox-operations';
import { startPlatformCrons, type RunningPlatformCrons } from './start-platform-crons';

/** How long a stop waits for a running platform cron: inside main.ts's 15 s shutdown limit. */
export const PLATFORM_CRONS_SHUTDOWN_GRACE_MS = 10_000;

/**
 * The scheduler replica's platform crons, with their MongoDB client. The client connects on first use, not here:
 * a replica starts, leads and emits ticks while MongoDB is down; only the crons' runs fail then (and are retried).
 * Loaded by `main.ts` after tracing started, so the MongoDB driver is instrumented.
 */
export async function runPlatformCrons(options: {
  config: Pick<
    SchedulerConfig,
    'mongoUrl' | 'mongoDb' | 'webhookEventRetentionDays' | 'alertWebhookUrl' | 'streamReplicas'
  >;
  messaging: Messaging;
  logger: BerthLogger;
  logContext?: LogContextStore;
  buckets: CronBuckets;
  holder: string;
  /** The replica's metrics registry: `webhook_events_set_aside_total{provider}` is counted there. */
  metricsRegistry?: Registry;
}): Promise<RunningPlatformCrons> {
  const { config, messaging, logger } = options;
  const mongo = new MongoClient(config.mongoUrl);
  const setAsideMetric = options.metricsRegistry
    ? new Counter({
        ...WEBHOOK_SET_ASIDE_COUNTER,
        labelNames: [...WEBHOOK_SET_ASIDE_COUNTER.labelNames],
        registers: [options.metricsRegistry],
      })
    : undefined;
  const operations = createInboxOperations({
    db: mongo.db(config.mongoDb),
    messaging,
    logger,
    retentionDays: config.webhookEventRetentionDays,
    alertWebhookUrl: config.alertWebhookUrl,
    setAsideMetric,
  });
  let crons: RunningPlatformCrons;
  try {
    crons = await startPlatformCrons({
      messaging,
      logger,
      logContext: options.logContext,
      buckets: options.buckets,
      holder: options.holder,
      operations,
      streamReplicas: config.streamReplicas,
      shutdownGraceMs: PLATFORM_CRONS_SHUTDOWN_GRACE_MS,
    });
  } catch (error) {
    await mongo.close().catch(() => undefined);
    throw error;
  }
  return {
    registration: crons.registration,
    healthy: () => crons.healthy(),
    async stop() {
      await crons.stop();
      await mongo.close();
    },
  };
}
