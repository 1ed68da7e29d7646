import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import type Stripe from 'stripe';
import type { Db } from 'mongodb';
import { inboxCollections, systemClock, webhookLogContext, webhookMessageWeight, type Clock } from '@berth/inbox';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import { JetStreamTransport, WEBHOOK_RETRY_POLICY, type Messaging, type RetryPolicy, type TransportConsumerOptions } from '@berth/messaging';
import { BillingSyncModule } from './billing-sync.module';
import type { BillingSyncConfig } from './config';
import { noopBillingSyncHooks, type BillingSyncHooks } from './hooks';
import { ensureBillingSyncIndexes } from './indexes';
import { PinoNestLogger } from '@berth/logger';
import type { BillingSyncRuntime } from './runtime';
import { billingCollections } from './workspaces/collections';

/** The durable consumer billing-sync reads: every Stripe event of stream `WEBHOOKS`. */
export const BILLING_SYNC_CONSUMER = { stream: 'WEBHOOKS', durable: 'billing-sync', filterSubjects: ['webhooks.stripe.>'] } as const;

/** What {@link createBillingSyncApp} is built from. Everything a test may want to replace is here. */
export interface BillingSyncAppOptions {
  config: Pick<BillingSyncConfig, 'BILLING_SYNC_CONCURRENCY' | 'BILLING_SYNC_ACK_WAIT_MS' | 'INBOX_LEASE_MS' | 'WORKSPACE_LOCK_MS' | 'WORKSPACE_LOCK_WAIT_MS' | 'SHUTDOWN_GRACE_MS'>;
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
  onOutcome?: TransportConsumerOptions['onOutcome'];
  /** Called before a message is given up on (dead letters). */
  onGiveUp?: TransportConsumerOptions['onGiveUp'];
  /** Filled in with the consumer's health ({@link JetStreamTransport.healthy}), which the service's readiness reads. */
  consumerHealth?: { healthy: () => boolean };
}

/** A replica id unique across hosts and restarts. */
export function defaultOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * Builds billing-sync as a Nest microservice on the JetStream transport (durable consumer `billing-sync` on
 * `webhooks.stripe.>`), after creating its indexes. Call `listen()` to start consuming and `close()` to stop pulling
 * and let running handlers finish. The `WEBHOOKS` stream must exist.
 */
export async function createBillingSyncApp(options: BillingSyncAppOptions): Promise<INestMicroservice> {
  const { config, logger } = options;
  await ensureBillingSyncIndexes(options.db);
  const retryPolicy = options.retryPolicy ?? WEBHOOK_RETRY_POLICY;
  const runtime: BillingSyncRuntime = {
    inbox: inboxCollections(options.db),
    collections: billingCollections(options.db),
    stripe: options.stripe,
    logger,
    clock: options.clock ?? systemClock,
    owner: options.owner ?? defaultOwner(),
    hooks: options.hooks ?? noopBillingSyncHooks,
    inboxLeaseMs: config.INBOX_LEASE_MS,
    logContext: options.logContext,
    batchConcurrency: config.BILLING_SYNC_CONCURRENCY,
    retryPolicy,
    workspaceLockMs: config.WORKSPACE_LOCK_MS,
    workspaceLockWaitMs: config.WORKSPACE_LOCK_WAIT_MS,
  };
  const transport = new JetStreamTransport({
    messaging: options.messaging,
    logger,
    logContext: options.logContext,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    consumers: [
      {
        ...BILLING_SYNC_CONSUMER,
        filterSubjects: [...BILLING_SYNC_CONSUMER.filterSubjects],
        concurrency: config.BILLING_SYNC_CONCURRENCY,
        ackWaitMs: config.BILLING_SYNC_ACK_WAIT_MS,
        retryPolicy,
        contextFor: webhookLogContext,
        weightOf: webhookMessageWeight,
        // The controller reads the message from the context: a batch message's data is not one JSON document.
        payloadOf: () => undefined,
        onOutcome: options.onOutcome,
        onGiveUp: options.onGiveUp,
      },
    ],
  });
  if (options.consumerHealth) options.consumerHealth.healthy = () => transport.healthy;
  return NestFactory.createMicroservice(BillingSyncModule.forRoot(runtime), { strategy: transport, logger: new PinoNestLogger(logger) });
}
