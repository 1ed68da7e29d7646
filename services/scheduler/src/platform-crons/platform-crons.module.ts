import { Module, type DynamicModule } from '@nestjs/common';
import { MessageQueueModule, type CronRunGuard, type MessageQueueDriverName } from '@berth/jobs';
import type { BerthLogger, LogContextStore } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import { WebhookRecoveryCronJob } from './jobs/webhook-recovery.cron.job';
import { WebhookRetentionCronJob } from './jobs/webhook-retention.cron.job';
import {
  PLATFORM_CRON_QUEUE,
  PLATFORM_CRONS_LOGGER,
  WEBHOOK_INBOX_OPERATIONS,
  type WebhookInboxOperations,
} from './platform-crons.tokens';

/** What the platform crons' module is built from. */
export interface PlatformCronsDependencies {
  /** `jetstream` in the scheduler; `sync` runs a cron inside `add` (tests). */
  driver: MessageQueueDriverName;
  /** Required by the `jetstream` driver. */
  messaging?: Messaging;
  logger: BerthLogger;
  logContext?: LogContextStore;
  operations: WebhookInboxOperations;
  /** Replicas of the job streams and deduplication bucket, if this replica creates them. */
  streamReplicas?: number;
  /** How long a stop waits for a running cron. */
  shutdownGraceMs?: number;
  /** The overlap policy (the cron run lock of `@berth/cron`). */
  cronRunGuard?: CronRunGuard;
}

/**
 * The platform crons the scheduler's replicas run (ARCHITECTURE: "the replicas also run the platform crons"), as
 * jobs of {@link PLATFORM_CRON_QUEUE} with the same retries and dead letters as any job: `WebhookRecoveryCronJob`
 * (every 10 minutes) and `WebhookRetentionCronJob` (03:30 UTC). Every replica runs a worker of that queue; each tick
 * is one job, run by one of them.
 */
@Module({})
export class PlatformCronsModule {
  static register(deps: PlatformCronsDependencies): DynamicModule {
    return {
      module: PlatformCronsModule,
      imports: [
        MessageQueueModule.forRoot({
          driver: deps.driver,
          messaging: deps.messaging,
          logger: deps.logger,
          logContext: deps.logContext,
          queues: [PLATFORM_CRON_QUEUE],
          defaults: { concurrency: 2 },
          infrastructure: { sizing: { replicas: deps.streamReplicas ?? 1 } },
          shutdownGraceMs: deps.shutdownGraceMs,
          cronRunGuard: deps.cronRunGuard,
        }),
      ],
      providers: [
        { provide: WEBHOOK_INBOX_OPERATIONS, useValue: deps.operations },
        { provide: PLATFORM_CRONS_LOGGER, useValue: deps.logger },
        WebhookRecoveryCronJob,
        WebhookRetentionCronJob,
      ],
    };
  }
}
