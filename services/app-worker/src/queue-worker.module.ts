import { Module, type DynamicModule, type ModuleMetadata } from '@nestjs/common';
import type { Db } from 'mongodb';
import { MessageQueueModule, type CronRunGuard, type JobObserver } from '@berth/jobs';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import { WebhooksModule, type WebhookConsumerSettings } from '@berth/webhook-handlers';
import { BillingModule } from './billing/billing.module';
import { ClientsModule } from './clients/clients.module';
import type { AppWorkerConfig } from './config';
import { DatabaseModule } from './database/database.module';
import { GithubModule } from './github/github.module';
import { systemClock, type Clock } from '@berth/contract';
import { LoggerModule } from './logging/logger.module';
import { MESSAGE_QUEUE_NAMES } from './message-queue-names';

/** What the worker's module is built from: its config and the connections `main.ts` opened. */
export interface QueueWorkerDependencies {
  config: Pick<AppWorkerConfig, 'messageQueueDriver' | 'queueConcurrency' | 'shutdownGraceMs' | 'freePlanSeatLimit'> &
    Partial<Pick<AppWorkerConfig, 'streamReplicas'>>;
  logger: BerthLogger;
  logContext: LogContextStore;
  /** Required by the `jetstream` driver. */
  messaging?: Messaging;
  db: Db;
  /** The clock of the jobs, the webhooks and the database's stamps; `systemClock` by default. */
  clock?: Clock;
  /** Told of every job queued and attempt finished (the worker's metrics). */
  observer?: JobObserver;
  /** Wraps every cron run: the overlap policy (`cronRunLockGuard` of `@berth/cron` on JetStream). */
  cronRunGuard?: CronRunGuard;
  /** Settings of the webhook consumers, by provider (the metrics' `onOutcome`). */
  webhookConsumers?: Readonly<Record<string, WebhookConsumerSettings>>;
  /** More feature modules, after the worker's own (tests add crons here). */
  imports?: NonNullable<ModuleMetadata['imports']>;
}

/**
 * The worker's root module. The worker only loads the modules listed here: a job or a webhook handler in a module
 * that isn't imported never runs. Every `@Processor`, `@CronProcessor` and `@WebhookProcessor` class among their
 * providers is found at start-up; each webhook provider with a handler gets its durable consumer
 * (`webhooks-<provider>`), so the gateway may store that provider's events.
 */
@Module({})
export class QueueWorkerModule {
  static register(deps: QueueWorkerDependencies): DynamicModule {
    const clock = deps.clock ?? systemClock;
    return {
      module: QueueWorkerModule,
      imports: [
        LoggerModule.register(deps.logger),
        DatabaseModule.register(deps.db, clock),
        MessageQueueModule.forRoot({
          driver: deps.config.messageQueueDriver,
          messaging: deps.messaging,
          logger: deps.logger,
          logContext: deps.logContext,
          queues: MESSAGE_QUEUE_NAMES,
          defaults: { concurrency: deps.config.queueConcurrency },
          shutdownGraceMs: deps.config.shutdownGraceMs,
          observer: deps.observer,
          infrastructure: { sizing: { replicas: deps.config.streamReplicas ?? 1 } },
          cronRunGuard: deps.cronRunGuard,
          clock,
        }),
        WebhooksModule.forRoot({
          driver: deps.config.messageQueueDriver,
          messaging: deps.messaging,
          db: deps.db,
          logger: deps.logger,
          logContext: deps.logContext,
          clock,
          shutdownGraceMs: deps.config.shutdownGraceMs,
          streamReplicas: deps.config.streamReplicas ?? 1,
          defaults: { concurrency: deps.config.queueConcurrency },
          providers: deps.webhookConsumers,
        }),
        ClientsModule,
        GithubModule,
        BillingModule.register({ freePlanSeatLimit: deps.config.freePlanSeatLimit }),
        ...(deps.imports ?? []),
      ],
    };
  }
}
