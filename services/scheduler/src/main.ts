import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createLogger, LogContextStore } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { startHealthServer } from '@berth/metrics';
import { startTelemetry } from '@berth/telemetry';
import { loadConfig } from './config';
import { SchedulerMetrics } from './metrics';
import { Scheduler } from './scheduler';

/**
 * Starts one scheduler replica: health server, NATS, schedules, the platform crons (recovery, retention: a worker of
 * their queue, registered with owner `scheduler`), lease. SIGTERM/SIGINT stop emitting, release the lease (a
 * successor takes over at once, not after the TTL), let a running platform cron finish, and exit 0.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const telemetry = startTelemetry({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint });
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
  const messaging = await connectMessaging({ servers: config.natsUrl, name: `scheduler ${holder}`, logger });
  scheduler = await Scheduler.create({
    messaging,
    logger,
    metrics,
    holder,
    leaseTtlMs: config.leaseTtlMs,
    tickIntervalMs: config.tickIntervalMs,
    graceMs: config.graceMs,
    buckets: { replicas: config.streamReplicas },
  });
  // Loaded now, after tracing started, so that the MongoDB driver is instrumented.
  const { runPlatformCrons } = await import('./platform-crons/run-platform-crons');
  const platformCrons = await runPlatformCrons({
    config,
    messaging,
    logger,
    logContext,
    buckets: scheduler.buckets,
    holder,
    metricsRegistry: metrics.registry,
  });
  platformCronsHealthy = platformCrons.healthy;
  await scheduler.start();
  logger.info(
    { instance: holder, healthPort: health.port, leaseTtlMs: config.leaseTtlMs, tickIntervalMs: config.tickIntervalMs },
    'Scheduler ready',
  );

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'Shutting down');
    setTimeout(() => {
      logger.error('Shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceMs).unref();
    try {
      await scheduler?.stop();
      await platformCrons.stop();
      await messaging.close();
      await health.close();
      await telemetry.shutdown();
      logger.info('Stopped');
      logger.flush();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'Shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
