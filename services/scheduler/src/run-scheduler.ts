import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { connectMessaging } from '@berth/messaging';
import { startService, type RunningService, type StartedService } from '@berth/service';
import type { SchedulerConfig } from './config';
import { SchedulerMetrics } from './metrics';
import { runPlatformCrons } from './platform-crons/run-platform-crons';
import { Scheduler } from './scheduler';

/**
 * A started scheduler replica, for `runService` to stop: {@link RunningService.stop} stops emitting, releases the
 * lease (a successor takes over at once), lets a running platform cron finish, then drains NATS.
 */
export type RunningScheduler = RunningService<StartedService>;

/**
 * Starts one scheduler replica through the service shell (`startService`: logger, health server, owned connections):
 * NATS, schedules, the platform crons (recovery, retention: a worker of their queue, registered with owner
 * `scheduler`), lease. Ready once it has started and its platform crons are healthy; logs `Scheduler ready`. Loaded
 * by `main.ts` after tracing has started, so that the MongoDB driver of the platform crons is instrumented. A failed
 * start closes what it opened.
 */
export function runScheduler(config: SchedulerConfig): Promise<RunningScheduler> {
  const holder = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  return startService({
    name: 'scheduler',
    log: { level: config.logLevel, format: config.logFormat },
    health: { port: config.healthPort, host: config.healthHost },
    readyMessage: 'Scheduler ready',
    async start({ logger, logContext, registry, healthPort, own }) {
      const metrics = new SchedulerMetrics({ registry });
      const messaging = own(
        await connectMessaging({ servers: config.natsUrl, name: `scheduler ${holder}`, logger }),
        (connection) => connection.close(),
      );
      const scheduler = await Scheduler.create({
        messaging,
        logger,
        metrics,
        holder,
        leaseTtlMs: config.leaseTtlMs,
        tickIntervalMs: config.tickIntervalMs,
        graceMs: config.graceMs,
        buckets: { replicas: config.streamReplicas },
      });
      const platformCrons = own(
        await runPlatformCrons({
          config,
          messaging,
          logger,
          logContext,
          buckets: scheduler.buckets,
          holder,
          metricsRegistry: registry,
        }),
        (crons) => crons.stop(),
      );
      await scheduler.start();
      return {
        // The owned platform crons and NATS close after it, in that order.
        close: () => scheduler.stop(),
        healthy: () => scheduler.ready && platformCrons.healthy(),
        readyFields: {
          instance: holder,
          healthPort,
          leaseTtlMs: config.leaseTtlMs,
          tickIntervalMs: config.tickIntervalMs,
        },
      };
    },
  });
}
