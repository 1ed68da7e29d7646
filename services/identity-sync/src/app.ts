import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from 'mongodb';
import { providerFilterSubject, STREAMS, WEBHOOK_CONSUMERS } from '@berth/contract';
import { systemClock, type Clock } from '@berth/inbox';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import { WEBHOOK_RETRY_POLICY, type Messaging, type RetryPolicy } from '@berth/messaging';
import { webhookWorkerApp, type WebhookConsumerSettings, type WebhookWorkerApp } from '@berth/webhook-handlers';
import { identityCollections } from './collections';
import type { IdentitySyncConfig } from './config';
import { IdentitySyncModule } from './identity-sync.module';
import { ensureIdentitySyncIndexes } from './indexes';
import { PinoNestLogger } from '@berth/logger';
import type { IdentitySyncRuntime } from './runtime';

/** The durable consumer identity-sync reads: every Clerk event of stream `WEBHOOKS`. */
export const IDENTITY_SYNC_CONSUMER = {
  stream: STREAMS.webhooks,
  durable: WEBHOOK_CONSUMERS.identitySync,
  filterSubjects: [providerFilterSubject('clerk')],
} as const;

/** What {@link createIdentitySyncApp} is built from. Everything a test may want to replace is here. */
export interface IdentitySyncAppOptions {
  config: Pick<
    IdentitySyncConfig,
    'IDENTITY_SYNC_CONCURRENCY' | 'IDENTITY_SYNC_ACK_WAIT_MS' | 'INBOX_LEASE_MS' | 'SHUTDOWN_GRACE_MS'
  >;
  messaging: Messaging;
  db: Db;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Defaults to {@link WEBHOOK_RETRY_POLICY} (11 attempts, about 85 minutes). */
  retryPolicy?: RetryPolicy;
  /** This replica's id; defaults to `<hostname>:<pid>:<random>`. */
  owner?: string;
  /** Called after each message is settled (metrics; tests wait on it). */
  onOutcome?: WebhookConsumerSettings['onOutcome'];
  /** Called before a message is given up on (dead letters). */
  onGiveUp?: WebhookConsumerSettings['onGiveUp'];
  /** Filled in with the consumers' health ({@link WebhookWorkerApp.healthy}), which the service's readiness reads. */
  consumerHealth?: { healthy: () => boolean };
}

/**
 * Builds identity-sync, after creating its indexes: a worker whose `ClerkWebhooksProcessor` handles every event of
 * `webhooks.clerk.>` through `WebhooksModule` (durable consumer `identity-sync`). Call `listen()` to start consuming
 * and `close()` to stop pulling and let running handlers finish. The `WEBHOOKS` stream must exist.
 */
export async function createIdentitySyncApp(options: IdentitySyncAppOptions): Promise<WebhookWorkerApp> {
  const { config, logger } = options;
  await ensureIdentitySyncIndexes(options.db);
  const clock = options.clock ?? systemClock;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const runtime: IdentitySyncRuntime = { collections: identityCollections(options.db), logger, clock, owner };
  const module = IdentitySyncModule.forRoot(runtime, {
    driver: 'jetstream',
    messaging: options.messaging,
    db: options.db,
    logger,
    logContext: options.logContext,
    clock,
    owner,
    leaseMs: config.INBOX_LEASE_MS,
    retryPolicy: options.retryPolicy ?? WEBHOOK_RETRY_POLICY,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    requiredProviders: ['clerk'],
    providers: {
      clerk: {
        consumer: IDENTITY_SYNC_CONSUMER.durable,
        concurrency: config.IDENTITY_SYNC_CONCURRENCY,
        ackWaitMs: config.IDENTITY_SYNC_ACK_WAIT_MS,
        onOutcome: options.onOutcome,
        onGiveUp: options.onGiveUp,
      },
    },
  });
  const app = webhookWorkerApp(module, new PinoNestLogger(logger));
  if (options.consumerHealth) options.consumerHealth.healthy = () => app.healthy();
  return app;
}
