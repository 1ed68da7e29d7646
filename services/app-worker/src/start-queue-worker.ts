import { NestFactory } from '@nestjs/core';
import { MongoClient } from 'mongodb';
import { createLogger, LogContextStore, PinoNestLogger, type BerthLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import type { AppWorkerConfig } from './config';
import { startHealthServer } from '@berth/metrics';
import { MESSAGE_QUEUE_NAMES } from './message-queue-names';
import { QueueWorkerModule } from './queue-worker.module';
import { createWorkerMetrics } from './worker-metrics';

/** A started worker. */
export interface RunningQueueWorker {
  logger: BerthLogger;
  /** Port of `/healthz`, `/readyz`, `/metrics`. */
  healthPort: number;
  /** Stops taking jobs, lets running ones finish (grace period), then closes NATS, MongoDB and the health server. */
  stop(): Promise<void>;
}

/**
 * Connects to NATS (JetStream driver) and MongoDB, starts the Nest application (its workers start pulling), serves
 * health and metrics, and logs `Queue worker ready`.
 */
export async function startQueueWorker(config: AppWorkerConfig): Promise<RunningQueueWorker> {
  const logContext = new LogContextStore();
  const logger = createLogger({ service: 'app-worker', level: config.logLevel, format: config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'), context: logContext });
  const messaging = config.messageQueueDriver === 'jetstream'
    ? await connectMessaging({ servers: config.natsUrl, name: 'app-worker', logger })
    : undefined;
  const mongo = await MongoClient.connect(config.mongoUrl);
  const metrics = createWorkerMetrics({ queues: MESSAGE_QUEUE_NAMES, messaging, logger });
  let ready = false;
  const health = await startHealthServer({
    host: config.healthHost,
    port: config.healthPort,
    registry: metrics.registry,
    readiness: () => ready && (!messaging || !messaging.nc.isClosed()),
    logger,
  });
  const app = await NestFactory.createApplicationContext(
    QueueWorkerModule.register({ config, logger, logContext, messaging, db: mongo.db(config.mongoDb), observer: metrics.observer }),
    { logger: new PinoNestLogger(logger) },
  );
  ready = true;
  logger.info({ driver: config.messageQueueDriver, healthPort: health.port }, 'Queue worker ready');
  return {
    logger,
    healthPort: health.port,
    async stop() {
      ready = false;
      await app.close();
      await messaging?.close();
      await mongo.close();
      await health.close();
    },
  };
}
