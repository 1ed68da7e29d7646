import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { DynamicModule } from '@nestjs/common';
import type { Db } from 'mongodb';
import { systemClock, type Clock } from '@berth/contract';
import { PinoNestLogger, type BerthLogger, type LogContextStore } from '@berth/logger';
import { WEBHOOK_RETRY_POLICY, type Messaging, type RetryPolicy } from '@berth/messaging';
import { webhookWorkerApp, type WebhookWorkerApp } from './webhook-worker-app';
import type { WebhookConsumerSettings, WebhooksModuleOptions } from './webhooks-module-options';

/**
 * What the app of a service consuming one provider's webhooks (billing-sync, identity-sync) is built from, besides
 * its own configuration and clients. Everything a test may want to replace is here.
 */
export interface WebhookConsumerAppOptions {
  messaging: Messaging;
  db: Db;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Defaults to {@link WEBHOOK_RETRY_POLICY} (11 attempts, about 85 minutes). */
  retryPolicy?: RetryPolicy;
  /** This replica's id; defaults to {@link defaultReplicaOwner}. */
  owner?: string;
  /** Called after each message is settled (metrics; tests wait on it). */
  onOutcome?: WebhookConsumerSettings['onOutcome'];
  /** Called before a message is given up on (dead letters). */
  onGiveUp?: WebhookConsumerSettings['onGiveUp'];
  /** Filled in with the consumers' health ({@link WebhookWorkerApp.healthy}), which the service's readiness reads. */
  consumerHealth?: { healthy: () => boolean };
}

/** The one consumer such an app runs, and its sizing. */
export interface WebhookConsumerShape {
  /** The provider it handles (`stripe`), required: the module refuses to start without a handler for it. */
  provider: string;
  /** Its durable consumer's name (`billing-sync`). */
  consumer: string;
  /** Events handled at once by one replica. */
  concurrency: number;
  /** JetStream ack wait; running handlers send `working()` meanwhile. */
  ackWaitMs: number;
  /** How long an inbox claim holds without renewal. */
  leaseMs: number;
  /** On close, how long running handlers may take to finish. */
  shutdownGraceMs: number;
}

/** A replica id unique across hosts and restarts: `<hostname>:<pid>:<random>`. */
export function defaultReplicaOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * Builds the worker app of a service consuming one provider's webhooks through the inbox over JetStream: resolves
 * the clock and owner defaults, hands them and the `WebhooksModule` options to `module` (the service's Nest module,
 * its handlers' runtime built from the same clock and owner), and wires `consumerHealth`. Call `listen()` to start
 * consuming; the `WEBHOOKS` stream must exist.
 */
export function webhookConsumerApp(
  options: WebhookConsumerAppOptions,
  shape: WebhookConsumerShape,
  module: (parts: { clock: Clock; owner: string; webhooks: WebhooksModuleOptions }) => DynamicModule,
): WebhookWorkerApp {
  const clock = options.clock ?? systemClock;
  const owner = options.owner ?? defaultReplicaOwner();
  const app = webhookWorkerApp(
    module({
      clock,
      owner,
      webhooks: {
        driver: 'jetstream',
        messaging: options.messaging,
        db: options.db,
        logger: options.logger,
        logContext: options.logContext,
        clock,
        owner,
        leaseMs: shape.leaseMs,
        retryPolicy: options.retryPolicy ?? WEBHOOK_RETRY_POLICY,
        shutdownGraceMs: shape.shutdownGraceMs,
        requiredProviders: [shape.provider],
        providers: {
          [shape.provider]: {
            consumer: shape.consumer,
            concurrency: shape.concurrency,
            ackWaitMs: shape.ackWaitMs,
            onOutcome: options.onOutcome,
            onGiveUp: options.onGiveUp,
          },
        },
      },
    }),
    new PinoNestLogger(options.logger),
  );
  if (options.consumerHealth) options.consumerHealth.healthy = () => app.healthy();
  return app;
}
