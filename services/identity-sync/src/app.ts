import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import type { Db } from 'mongodb';
import { inboxCollections, systemClock, webhookLogContext, webhookMessageWeight, type Clock } from '@berth/inbox';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import { JetStreamTransport, WEBHOOK_RETRY_POLICY, type Messaging, type RetryPolicy, type TransportConsumerOptions } from '@berth/messaging';
import { identityCollections } from './collections';
import type { IdentitySyncConfig } from './config';
import { IdentitySyncModule } from './identity-sync.module';
import { ensureIdentitySyncIndexes } from './indexes';
import { PinoNestLogger } from '@berth/logger';
import type { IdentitySyncRuntime } from './runtime';

/** The durable consumer identity-sync reads: every Clerk event of stream `WEBHOOKS`. */
export const IDENTITY_SYNC_CONSUMER = { stream: 'WEBHOOKS', durable: 'identity-sync', filterSubjects: ['webhooks.clerk.>'] } as const;

/** What {@link createIdentitySyncApp} is built from. Everything a test may want to replace is here. */
export interface IdentitySyncAppOptions {
  config: Pick<IdentitySyncConfig, 'IDENTITY_SYNC_CONCURRENCY' | 'IDENTITY_SYNC_ACK_WAIT_MS' | 'INBOX_LEASE_MS' | 'SHUTDOWN_GRACE_MS'>;
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
  onOutcome?: TransportConsumerOptions['onOutcome'];
  /** Called before a message is given up on (dead letters). */
  onGiveUp?: TransportConsumerOptions['onGiveUp'];
  /** Filled in with the consumer's health ({@link JetStreamTransport.healthy}), which the service's readiness reads. */
  consumerHealth?: { healthy: () => boolean };
}

/**
 * Builds identity-sync as a Nest microservice on the JetStream transport (durable consumer `identity-sync` on
 * `webhooks.clerk.>`), after creating its indexes. Call `listen()` to start consuming and `close()` to stop pulling
 * and let running handlers finish. The `WEBHOOKS` stream must exist.
 */
export async function createIdentitySyncApp(options: IdentitySyncAppOptions): Promise<INestMicroservice> {
  const { config, logger } = options;
  await ensureIdentitySyncIndexes(options.db);
  const retryPolicy = options.retryPolicy ?? WEBHOOK_RETRY_POLICY;
  const runtime: IdentitySyncRuntime = {
    inbox: inboxCollections(options.db),
    collections: identityCollections(options.db),
    logger,
    clock: options.clock ?? systemClock,
    owner: options.owner ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    inboxLeaseMs: config.INBOX_LEASE_MS,
    logContext: options.logContext,
    batchConcurrency: config.IDENTITY_SYNC_CONCURRENCY,
    retryPolicy,
  };
  const transport = new JetStreamTransport({
    messaging: options.messaging,
    logger,
    logContext: options.logContext,
    shutdownGraceMs: config.SHUTDOWN_GRACE_MS,
    consumers: [
      {
        ...IDENTITY_SYNC_CONSUMER,
        filterSubjects: [...IDENTITY_SYNC_CONSUMER.filterSubjects],
        concurrency: config.IDENTITY_SYNC_CONCURRENCY,
        ackWaitMs: config.IDENTITY_SYNC_ACK_WAIT_MS,
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
  return NestFactory.createMicroservice(IdentitySyncModule.forRoot(runtime), { strategy: transport, logger: new PinoNestLogger(logger) });
}
