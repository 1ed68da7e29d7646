import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { cronRunLockGuard, registerCronSchedules, type CronBuckets, type CronRegistration } from '@berth/cron';
import { JobRegistry, MESSAGE_QUEUE_DRIVER, type QueueDriver } from '@berth/jobs';
import { PinoNestLogger, type BerthLogger, type LogContextStore } from '@berth/logger';
import type { Messaging } from '@berth/messaging';
import { PlatformCronsModule } from './platform-crons.module';
import { PLATFORM_CRON_OWNER, type WebhookInboxOperations } from './platform-crons.tokens';

/** Options for {@link startPlatformCrons}. */
export interface StartPlatformCronsOptions {
  messaging: Messaging;
  logger: BerthLogger;
  logContext?: LogContextStore;
  /** The scheduler's cron buckets: where the schedules are registered and the run locks taken. */
  buckets: CronBuckets;
  /** This replica's id (the lease holder id), shown in run locks. */
  holder: string;
  operations: WebhookInboxOperations;
  streamReplicas?: number;
  shutdownGraceMs?: number;
}

/** The running platform crons of one scheduler replica. */
export interface RunningPlatformCrons {
  /** What the registration at start changed. */
  readonly registration: CronRegistration;
  /** False when the platform cron queue's consumer cannot pull: the replica's readiness includes it. */
  healthy(): boolean;
  /** Stops taking cron jobs and lets a running one finish (up to the grace period). */
  stop(): Promise<void>;
}

/**
 * Starts the worker of the platform cron queue on JetStream (each run under the cron's run lock: a tick arriving
 * while the previous run of that cron goes on is skipped with a log line), then registers the platform crons with
 * owner `scheduler`: new and changed ones are written, ones no longer defined removed, each logged
 * `Cron <Name> scheduled: <pattern> (<zone>).`
 */
export async function startPlatformCrons(options: StartPlatformCronsOptions): Promise<RunningPlatformCrons> {
  const { buckets, logger } = options;
  const app = await NestFactory.createApplicationContext(
    PlatformCronsModule.register({
      driver: 'jetstream',
      messaging: options.messaging,
      logger,
      logContext: options.logContext,
      operations: options.operations,
      streamReplicas: options.streamReplicas,
      shutdownGraceMs: options.shutdownGraceMs,
      cronRunGuard: cronRunLockGuard({ buckets, holder: options.holder, logger }),
    }),
    { logger: new PinoNestLogger(logger) },
  );
  let registration: CronRegistration;
  try {
    registration = await registerCronSchedules({
      buckets,
      owner: PLATFORM_CRON_OWNER,
      definitions: app.get(JobRegistry).crons(),
      logger,
    });
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const driver = app.get<QueueDriver>(MESSAGE_QUEUE_DRIVER);
  return { registration, healthy: () => driver.healthy?.() !== false, stop: () => app.close() };
}
