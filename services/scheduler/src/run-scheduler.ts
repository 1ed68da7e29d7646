import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createLogger, LogContextStore, type BerthLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { startHealthServer } from '@berth/metrics';
import type { SchedulerConfig } from './config';
import { SchedulerMetrics } from './metrics';
import { runPlatformCrons } from './platform-crons/run-platform-crons';
import { Scheduler } from './scheduler';

/** A started scheduler replica, for `runService` to stop. */
export interface RunningScheduler {
  logger: BerthLogger;
  /** Stops emitting, releases the lease (a successor takes over at once), lets a running platform cron finish. */
  stop(): Promise<void>;
}

/**
 * Starts one scheduler replica: health server, NATS, schedules, the platform crons (recovery, retention: a worker of
 * their queue, registered with owner `scheduler`), lease. Loaded by `main.ts` after tracing has started, so that the
 * MongoDB driver of the platform crons is instrumented. A failed start closes what it opened.
 */
export async function runScheduler(config: SchedulerConfig): Promise<RunningScheduler> {
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'scheduler',
    level: config.logLevel,
    format: config.logFormat ?? (process.stdout.isTTY ? 'pretty' : 'json'),
    context: logContext,
  });
  const holder = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const metrics = new SchedulerMetrics({ processMetrics: true });
  let scheduler: Scheduler | undefined;
  let platformCronsHealthy = (): boolean => false;
  const health = await startHealthServer({
    host: config.healthHost,
    port: config.healthPort,
    readiness: () => (scheduler?.ready ?? false) && platformCronsHealthy(),
    registry: metrics.registry,
    logger,
  });
  const closeOnFailure: (() => Promise<void>)[] = [() => health.close()];
  try {
    const messaging = await connectMessaging({ servers: config.natsUrl, name: `scheduler ${holder}`, logger });
    closeOnFailure.unshift(() => messaging.close());
    const created = await Scheduler.create({
      messaging,
      logger,
      metrics,
      holder,
      leaseTtlMs: config.leaseTtlMs,
      tickIntervalMs: config.tickIntervalMs,
      graceMs: config.graceMs,
      buckets: { replicas: config.streamReplicas },
    });
    scheduler = created;
    const platformCrons = await runPlatformCrons({
      config,
      messaging,
      logger,
      logContext,
      buckets: created.buckets,
      holder,
      metricsRegistry: metrics.registry,
    });
    closeOnFailure.unshift(() => platformCrons.stop());
    platformCronsHealthy = platformCrons.healthy;
    await created.start();
    logger.info(
      {
        instance: holder,
        healthPort: health.port,
        leaseTtlMs: config.leaseTtlMs,
        tickIntervalMs: config.tickIntervalMs,
      },
      'Scheduler ready',
    );
    return {
      logger,
      async stop() {
        await created.stop();
        await platformCrons.stop();
        await messaging.close();
        await health.close();
      },
    };
  } catch (error) {
    for (const close of closeOnFailure) await close().catch(() => undefined);
    throw error;
  }
}
