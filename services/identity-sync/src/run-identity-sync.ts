import 'reflect-metadata';
import { MongoClient } from 'mongodb';
import { inboxCollections, registerWebhookConsumerMetrics } from '@berth/inbox';
import { createLogger, LogContextStore, type BerthLogger } from '@berth/logger';
import { connectMessaging, ensureWebhooksStreamExists, type Messaging } from '@berth/messaging';
import { createMetricsRegistry, startHealthServer } from '@berth/metrics';
import { IDENTITY_SYNC_CONSUMER, createIdentitySyncApp } from './app';
import type { IdentitySyncConfig } from './config';

/** A running identity-sync. */
export interface RunningIdentitySync {
  readonly logger: BerthLogger;
  /** Where `/healthz`, `/readyz` and `/metrics` are served. */
  readonly healthPort: number;
  /** Stops pulling, lets running handlers finish, closes the connections and the health server. */
  stop(): Promise<void>;
}

/**
 * Runs identity-sync: serves `/healthz`, `/readyz` and `/metrics` on `HEALTH_PORT` first (not ready yet), connects
 * MongoDB and NATS, makes sure stream `WEBHOOKS` exists, consumes `webhooks.clerk.>`, and logs "Identity sync ready"
 * with the health port. Ready means consuming with NATS connected; it turns false as soon as a stop begins.
 *
 * Loaded by `main.ts` after tracing has started, so `mongodb` and the app are instrumented.
 */
export async function runIdentitySync(config: IdentitySyncConfig): Promise<RunningIdentitySync> {
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'identity-sync',
    level: config.LOG_LEVEL,
    format: config.LOG_FORMAT,
    context: logContext,
  });
  const registry = createMetricsRegistry({ processMetrics: true });
  const state = { consuming: false };
  const consumerHealth = { healthy: (): boolean => false };
  let mongo: MongoClient | undefined;
  let messaging: Messaging | undefined;
  const health = await startHealthServer({
    port: config.HEALTH_PORT,
    host: config.HEALTH_HOST,
    registry,
    readiness: () => state.consuming && messaging?.isConnected() === true && consumerHealth.healthy(),
    logger,
  });

  try {
    mongo = await MongoClient.connect(config.MONGO_URL);
    messaging = await connectMessaging({ servers: config.NATS_URL, name: 'identity-sync', logger });
    await ensureWebhooksStreamExists(messaging.jsm, { replicas: config.STREAM_REPLICAS });
    const db = mongo.db(config.MONGO_DB);
    const onOutcome = registerWebhookConsumerMetrics({
      registry,
      jsm: messaging.jsm,
      consumer: IDENTITY_SYNC_CONSUMER,
      provider: 'clerk',
      events: inboxCollections(db).events,
      readCacheMs: config.METRICS_READ_CACHE_MS,
      logger,
    });
    const app = await createIdentitySyncApp({ config, messaging, db, logger, logContext, onOutcome, consumerHealth });
    await app.listen();
    state.consuming = true;
    logger.info({ concurrency: config.IDENTITY_SYNC_CONCURRENCY, healthPort: health.port }, 'Identity sync ready');

    const connections = { mongo, messaging };
    return {
      logger,
      healthPort: health.port,
      async stop() {
        state.consuming = false;
        await app.close();
        await connections.messaging.close();
        await connections.mongo.close();
        await health.close();
        logger.info('Identity sync stopped');
      },
    };
  } catch (error) {
    await messaging?.close().catch(() => undefined);
    await mongo?.close().catch(() => undefined);
    await health.close();
    throw error;
  }
}
