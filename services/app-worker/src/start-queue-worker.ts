import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MongoClient } from 'mongodb';
import { cronRunLockGuard, openCronBuckets, registerCronSchedules } from '@berth/cron';
import { JobRegistry, MESSAGE_QUEUE_DRIVER, type QueueDriver } from '@berth/jobs';
import { createLogger, LogContextStore, PinoNestLogger, type BerthLogger, type LoggerOptions } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import type { AppWorkerConfig } from './config';
import { startHealthServer } from '@berth/metrics';
import { inboxCollections } from '@berth/inbox';
import { APP_WORKER_WEBHOOK_PROVIDERS, MESSAGE_QUEUE_NAMES } from './message-queue-names';
import { QueueWorkerModule } from './queue-worker.module';
import { createWebhookConsumerMetrics, createWorkerMetrics } from './worker-metrics';

/** The owner of the crons the worker registers: only a start of the worker removes them. */
export const APP_WORKER_CRON_OWNER = 'app-worker';

/** A started worker. */
export interface RunningQueueWorker {
  logger: BerthLogger;
  /** Port of `/healthz`, `/readyz`, `/metrics`. */
  healthPort: number;
  /** Stops taking jobs, lets running ones finish (grace period), then closes NATS, MongoDB and the health server. */
  stop(): Promise<void>;
}

/** What tests may add to a worker started in their process. */
export interface StartQueueWorkerOptions {
  /** Where the log lines go; stdout when unset. */
  logDestination?: LoggerOptions['destination'];
  /** More feature modules (a test's crons), after the worker's own. */
  imports?: NonNullable<ModuleMetadata['imports']>;
}

/**
 * Connects to NATS (JetStream driver) and MongoDB, starts the Nest application (its workers start pulling), then
 * registers the crons it found (`registerCronSchedules`, owner `app-worker`: new and changed schedules are written,
 * the ones no longer defined are removed, each logged `Cron <Name> scheduled: <pattern> (<zone>).`), serves health
 * and metrics, and logs `Queue worker ready`. On JetStream every cron run holds the cron's run lock (overlap policy:
 * a tick arriving while the previous run goes on is skipped with a log line).
 */
export async function startQueueWorker(
  config: AppWorkerConfig,
  options: StartQueueWorkerOptions = {},
): Promise<RunningQueueWorker> {
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'app-worker',
    level: config.logLevel,
    format: config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    context: logContext,
    destination: options.logDestination,
  });
  const messaging =
    config.messageQueueDriver === 'jetstream'
      ? await connectMessaging({ servers: config.natsUrl, name: 'app-worker', logger })
      : undefined;
  const cronBuckets = messaging ? await openCronBuckets(messaging.js, { replicas: config.streamReplicas }) : undefined;
  const holder = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const mongo = await MongoClient.connect(config.mongoUrl);
  const metrics = createWorkerMetrics({ queues: MESSAGE_QUEUE_NAMES, messaging, logger });
  const db = mongo.db(config.mongoDb);
  const webhookConsumers = createWebhookConsumerMetrics(metrics.registry, {
    providers: APP_WORKER_WEBHOOK_PROVIDERS,
    events: inboxCollections(db).events,
    logger,
  });
  let ready = false;
  const health = await startHealthServer({
    host: config.healthHost,
    port: config.healthPort,
    registry: metrics.registry,
    readiness: () =>
      ready &&
      (!messaging || !messaging.nc.isClosed()) &&
      app.get<QueueDriver>(MESSAGE_QUEUE_DRIVER).healthy?.() !== false,
    logger,
  });
  const app = await NestFactory.createApplicationContext(
    QueueWorkerModule.register({
      config,
      logger,
      logContext,
      messaging,
      db,
      observer: metrics.observer,
      webhookConsumers,
      cronRunGuard: cronBuckets ? cronRunLockGuard({ buckets: cronBuckets, holder, logger }) : undefined,
      imports: options.imports,
    }),
    { logger: new PinoNestLogger(logger) },
  );
  const stop = async (): Promise<void> => {
    ready = false;
    await app.close();
    await messaging?.close();
    await mongo.close();
    await health.close();
  };
  if (cronBuckets) {
    // After the workers started: a tick of a new schedule finds its consumer.
    try {
      await registerCronSchedules({
        buckets: cronBuckets,
        owner: APP_WORKER_CRON_OWNER,
        definitions: app.get(JobRegistry).crons(),
        logger,
      });
    } catch (error) {
      await stop().catch(() => undefined);
      throw error;
    }
  }
  ready = true;
  logger.info({ driver: config.messageQueueDriver, healthPort: health.port, instance: holder }, 'Queue worker ready');
  return { logger, healthPort: health.port, stop };
}
