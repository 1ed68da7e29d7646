import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MongoClient } from 'mongodb';
import { cronRunLockGuard, openCronBuckets, registerCronSchedules } from '@berth/cron';
import { JobRegistry, MESSAGE_QUEUE_DRIVER, type QueueDriver } from '@berth/jobs';
import { PinoNestLogger, type BerthLogger, type LoggerOptions } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { startService } from '@berth/service';
import type { AppWorkerConfig } from './config';
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
  healthPort: number | undefined;
  /** Stops taking jobs, lets running ones finish (grace period), then closes MongoDB, NATS and the health server. */
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
 * Runs the worker on the service shell ({@link startService}): serves health and metrics (not ready yet), connects
 * to NATS (JetStream driver) and MongoDB, starts the Nest application (its workers start pulling), then registers
 * the crons it found (`registerCronSchedules`, owner `app-worker`: new and changed schedules are written, the ones
 * no longer defined are removed, each logged `Cron <Name> scheduled: <pattern> (<zone>).`), and logs
 * `Queue worker ready`. On JetStream every cron run holds the cron's run lock (overlap policy: a tick arriving while
 * the previous run goes on is skipped with a log line).
 */
export async function startQueueWorker(
  config: AppWorkerConfig,
  options: StartQueueWorkerOptions = {},
): Promise<RunningQueueWorker> {
  const running = await startService({
    name: 'app-worker',
    log: { level: config.logLevel, format: config.logFormat, destination: options.logDestination },
    health: { port: config.healthPort, host: config.healthHost },
    readyMessage: 'Queue worker ready',
    async start({ logger, logContext, registry, own, healthPort }) {
      const messaging =
        config.messageQueueDriver === 'jetstream'
          ? own(await connectMessaging({ servers: config.natsUrl, name: 'app-worker', logger }), (nats) => nats.close())
          : undefined;
      const cronBuckets = messaging
        ? await openCronBuckets(messaging.js, { replicas: config.streamReplicas })
        : undefined;
      const holder = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
      const mongo = own(await MongoClient.connect(config.mongoUrl), (client) => client.close());
      const metrics = createWorkerMetrics({ registry, queues: MESSAGE_QUEUE_NAMES, messaging, logger });
      const db = mongo.db(config.mongoDb);
      const webhookConsumers = createWebhookConsumerMetrics(registry, {
        providers: APP_WORKER_WEBHOOK_PROVIDERS,
        events: inboxCollections(db).events,
        logger,
      });
      const app = own(
        await NestFactory.createApplicationContext(
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
        ),
        (nest) => nest.close(),
      );
      if (cronBuckets) {
        // After the workers started: a tick of a new schedule finds its consumer.
        await registerCronSchedules({
          buckets: cronBuckets,
          owner: APP_WORKER_CRON_OWNER,
          definitions: app.get(JobRegistry).crons(),
          logger,
        });
      }
      return {
        healthy: () =>
          (!messaging || !messaging.nc.isClosed()) && app.get<QueueDriver>(MESSAGE_QUEUE_DRIVER).healthy?.() !== false,
        readyFields: { driver: config.messageQueueDriver, healthPort, instance: holder },
      };
    },
  });
  return { logger: running.logger, healthPort: running.healthPort, stop: () => running.stop() };
}
