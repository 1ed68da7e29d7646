import 'reflect-metadata';
import { MongoClient } from 'mongodb';
import { inboxCollections, registerWebhookConsumerMetrics } from '@berth/inbox';
import { createJobProducer } from '@berth/jobs';
import { createLogger, LogContextStore, type BerthLogger } from '@berth/logger';
import { connectMessaging, ensureWebhooksStreamExists, type Messaging } from '@berth/messaging';
import { createMetricsRegistry, startHealthServer } from '@berth/metrics';
import { BILLING_SYNC_CONSUMER, createBillingSyncApp } from './app';
import type { BillingSyncConfig } from './config';
import { memberLimitHooks } from './member-limit-hooks';
import { createStripeClient } from './stripe/create-stripe-client';

/** A running billing-sync. */
export interface RunningBillingSync {
  readonly logger: BerthLogger;
  /** Where `/healthz`, `/readyz` and `/metrics` are served. */
  readonly healthPort: number;
  /** Stops pulling, lets running handlers finish, closes the connections and the health server. */
  stop(): Promise<void>;
}

/**
 * Runs billing-sync: serves `/healthz`, `/readyz` and `/metrics` on `HEALTH_PORT` first (not ready yet), connects
 * MongoDB and NATS, makes sure stream `WEBHOOKS` exists, consumes `webhooks.stripe.>`, and logs "Billing sync ready"
 * with the health port. After each subscription sync it queues app-worker's `ApplyWorkspaceMemberLimitJob` for the
 * workspace ({@link memberLimitHooks}). Ready means consuming with NATS connected; it turns false as soon as a stop
 * begins.
 *
 * Loaded by `main.ts` after tracing has started, so `mongodb`, `http` (the Stripe client) and the app are
 * instrumented.
 */
export async function runBillingSync(config: BillingSyncConfig): Promise<RunningBillingSync> {
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'billing-sync',
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
    messaging = await connectMessaging({ servers: config.NATS_URL, name: 'billing-sync', logger });
    await ensureWebhooksStreamExists(messaging.jsm, { replicas: config.STREAM_REPLICAS });
    const db = mongo.db(config.MONGO_DB);
    const onOutcome = registerWebhookConsumerMetrics({
      registry,
      jsm: messaging.jsm,
      consumer: BILLING_SYNC_CONSUMER,
      provider: 'stripe',
      events: inboxCollections(db).events,
      readCacheMs: config.METRICS_READ_CACHE_MS,
      logger,
    });
    // After a subscription change: ApplyWorkspaceMemberLimitJob on billing-queue, once per workspace while it waits.
    const jobs = createJobProducer({
      messaging,
      logger,
      infrastructure: { sizing: { replicas: config.STREAM_REPLICAS } },
    });
    const hooks = memberLimitHooks(jobs, logger);
    const app = await createBillingSyncApp({
      config,
      messaging,
      db,
      stripe: createStripeClient(config),
      logger,
      logContext,
      onOutcome,
      hooks,
      consumerHealth,
    });
    await app.listen();
    state.consuming = true;
    logger.info(
      {
        concurrency: config.BILLING_SYNC_CONCURRENCY,
        stripeApi: config.STRIPE_API_BASE ?? 'https://api.stripe.com',
        healthPort: health.port,
      },
      'Billing sync ready',
    );

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
        logger.info('Billing sync stopped');
      },
    };
  } catch (error) {
    await messaging?.close().catch(() => undefined);
    await mongo?.close().catch(() => undefined);
    await health.close();
    throw error;
  }
}
