import { MongoClient, type Db } from 'mongodb';
import { inboxCollections, registerWebhookConsumerMetrics } from '@berth/inbox';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import { connectMessaging, ensureWebhooksStreamExists, type Messaging } from '@berth/messaging';
import { startService, type RunningService, type ServiceContext, type StartedService } from '@berth/service';
import type { WebhookWorkerApp } from './webhook-worker-app';
import type { WebhookConsumerSettings } from './webhooks-module-options';

/** The configuration a webhook consumer service reads to start (its own sizing goes to `createApp`). */
export interface WebhookConsumerServiceConfig {
  readonly logLevel: string;
  readonly logFormat?: 'json' | 'pretty';
  readonly healthPort: number;
  readonly healthHost: string;
  readonly mongoUrl: string;
  readonly mongoDb: string;
  readonly natsUrl: string;
  /** Replicas of stream `WEBHOOKS` when the service has to create it. */
  readonly streamReplicas: number;
  /** How long one reading of the consumer's info and of the inbox backlog serves `/metrics` scrapes. */
  readonly metricsReadCacheMs: number;
}

/** What a webhook consumer service's app is built from, once MongoDB and NATS are connected. */
export interface WebhookConsumerAppParts {
  readonly messaging: Messaging;
  readonly db: Db;
  readonly logger: BerthLogger;
  readonly logContext: LogContextStore;
  /** Records each settled message in the consumer's metrics. */
  readonly onOutcome: NonNullable<WebhookConsumerSettings['onOutcome']>;
  /** Registers something more to close at a stop or a failed start (see {@link ServiceContext.own}). */
  readonly own: ServiceContext['own'];
}

/** Options of {@link startWebhookConsumerService}. */
export interface WebhookConsumerServiceOptions {
  /** The service's name: the `service` field of its log lines and its NATS connection name. */
  name: string;
  /** The provider whose events it consumes (`stripe`), the label of its backlog metrics. */
  provider: string;
  /** Its durable consumer of stream `WEBHOOKS`. */
  consumer: { readonly stream: string; readonly durable: string; readonly filterSubjects: readonly string[] };
  config: WebhookConsumerServiceConfig;
  /** E.g. `Billing sync ready`, logged with `readyFields` and the health port. */
  readyMessage: string;
  readyFields: Record<string, unknown>;
  stoppedMessage: string;
  /** Builds the worker (indexes, Nest module); it is then told to `listen()`. */
  createApp(parts: WebhookConsumerAppParts): Promise<WebhookWorkerApp>;
}

/**
 * Runs a service that consumes one provider's webhooks through the inbox (billing-sync, identity-sync) on the
 * service shell ({@link startService}): serves `/healthz`, `/readyz` and `/metrics` on `HEALTH_PORT` first (not ready
 * yet), connects MongoDB and NATS, makes sure stream `WEBHOOKS` exists, registers the consumer's metrics (its depth,
 * the inbox backlog, outcomes), builds the app and starts consuming, then logs `readyMessage`. Ready means consuming
 * with NATS connected and every consumer pulling; it turns false as soon as a stop begins. A stop lets running
 * handlers finish, then closes NATS, MongoDB and the health server.
 */
export function startWebhookConsumerService(
  options: WebhookConsumerServiceOptions,
): Promise<RunningService<StartedService>> {
  const { config } = options;
  return startService({
    name: options.name,
    log: { level: config.logLevel, format: config.logFormat },
    health: { port: config.healthPort, host: config.healthHost },
    readyMessage: options.readyMessage,
    stoppedMessage: options.stoppedMessage,
    async start({ logger, logContext, registry, own }) {
      const mongo = own(await MongoClient.connect(config.mongoUrl), (client) => client.close());
      const messaging = own(await connectMessaging({ servers: config.natsUrl, name: options.name, logger }), (nats) =>
        nats.close(),
      );
      await ensureWebhooksStreamExists(messaging.jsm, { replicas: config.streamReplicas });
      const db = mongo.db(config.mongoDb);
      const onOutcome = registerWebhookConsumerMetrics({
        registry,
        jsm: messaging.jsm,
        consumer: options.consumer,
        provider: options.provider,
        events: inboxCollections(db).events,
        readCacheMs: config.metricsReadCacheMs,
        logger,
      });
      const app = await options.createApp({ messaging, db, logger, logContext, onOutcome, own });
      await app.listen();
      return {
        close: () => app.close(),
        healthy: () => messaging.isConnected() && app.healthy(),
        readyFields: options.readyFields,
      };
    },
  });
}
