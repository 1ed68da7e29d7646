import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type Stripe from 'stripe';
import type { Db } from 'mongodb';
import { providerFilterSubject, STREAMS, WEBHOOK_CONSUMERS } from '@berth/contract';
import { systemClock, type Clock } from '@berth/inbox';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import { WEBHOOK_RETRY_POLICY, type Messaging, type RetryPolicy } from '@berth/messaging';
import { webhookWorkerApp, type WebhookConsumerSettings, type WebhookWorkerApp } from '@berth/webhook-handlers';
import { BillingSyncModule } from './billing-sync.module';
import type { BillingSyncConfig } from './config';
import { noopBillingSyncHooks, type BillingSyncHooks } from './hooks';
import { ensureBillingSyncIndexes } from './indexes';
import { PinoNestLogger } from '@berth/logger';
import type { BillingSyncRuntime } from './runtime';
import { billingCollections } from './workspaces/collections';

/** The durable consumer billing-sync reads: every Stripe event of stream `WEBHOOKS`. */
export const BILLING_SYNC_CONSUMER = {
  stream: STREAMS.webhooks,
  durable: WEBHOOK_CONSUMERS.billingSync,
  filterSubjects: [providerFilterSubject('stripe')],
} as const;

/** What {@link createBillingSyncApp} is built from. Everything a test may want to replace is here. */
export interface BillingSyncAppOptions {
  config: Pick<
    BillingSyncConfig,
    | 'BILLING_SYNC_CONCURRENCY'
    | 'BILLING_SYNC_ACK_WAIT_MS'
    | 'INBOX_LEASE_MS'
    | 'WORKSPACE_LOCK_MS'
    | 'WORKSPACE_LOCK_WAIT_MS'
    | 'SHUTDOWN_GRACE_MS'
  >;
  messaging: Messaging;
  db: Db;
  stripe: Stripe;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Defaults to {@link WEBHOOK_RETRY_POLICY} (11 attempts, about 85 minutes). */
  retryPolicy?: RetryPolicy;
  /** Defaults to no-ops. */
  hooks?: BillingSyncHooks;
  /** This replica's id; defaults to `<hostname>:<pid>:<random>`. */
  owner?: string;
  /** Called after each message is settled (metrics; tests wait on it). */
  onOutcome?: WebhookConsumerSettings['onOutcome'];
  /** Called before a message is given up on (dead letters). */
  onGiveUp?: WebhookConsumerSettings['onGiveUp'];
  /** Filled in with the consumers' health ({@link WebhookWorkerApp.healthy}), which the service's readiness reads. */
  consumerHealth?: { healthy: () => boolean };
}

/** A replica id unique across hosts and restarts. */
export function defaultOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * Builds billing-sync, after creating its indexes: a worker whose `StripeWebhooksProcessor` handles every event of
 * `webhooks.stripe.>` through `WebhooksModule` (durable consumer `billing-sync`). Call `listen()` to start consuming
 * and `close()` to stop pulling and let running handlers finish. The `WEBHOOKS` stream must exist.
 */
export async function createBillingSyncApp(options: BillingSyncAppOptions): Promise<WebhookWorkerApp> {
  const { config, logger } = options;
  await ensureBillingSyncIndexes(options.db);
  const clock = options.clock ?? systemClock;
  const owner = options.owner ?? defaultOwner();
  const runtime: BillingSyncRuntime = {
    collections: billingCollections(options.db),
    stripe: options.stripe,
    logger,
    clock,
    owner,
    hooks: options.hooks ?? noopBillingSyncHooks,
    workspaceLockMs: config.WORKSPACE_LOCK_MS,
    workspaceLockWaitMs: config.WORKSPACE_LOCK_WAIT_MS,
  };
  const module = BillingSyncModule.forRoot(runtime, {
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
    requiredProviders: ['stripe'],
    providers: {
      stripe: {
        consumer: BILLING_SYNC_CONSUMER.durable,
        concurrency: config.BILLING_SYNC_CONCURRENCY,
        ackWaitMs: config.BILLING_SYNC_ACK_WAIT_MS,
        onOutcome: options.onOutcome,
        onGiveUp: options.onGiveUp,
      },
    },
  });
  const app = webhookWorkerApp(module, new PinoNestLogger(logger));
  if (options.consumerHealth) options.consumerHealth.healthy = () => app.healthy();
  return app;
}
