/**
 * The scheduler process: `node -r ./deploy/runtime/ts-hook.js services/scheduler/src/main.ts`. Reads the
 * configuration, starts tracing, then loads and starts one replica ({@link runScheduler}) through the service shell.
 * SIGTERM/SIGINT stop emitting, release the lease, let a running platform cron finish, and exit 0. A stop that
 * outlasts `SHUTDOWN_GRACE_MS`, or a failed start, exits 1 at once: the replica has given up its lease or never
 * held it, and whatever hangs must not keep the process alive.
 */
import { runService } from '@berth/service';
import { loadConfig } from './config';

void runService({
  name: 'scheduler',
  config: () => loadConfig(process.env),
  telemetry: (config) => ({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint }),
  start: async (config) => (await import('./run-scheduler')).runScheduler(config),
  stopDeadlineMs: (config) => config.shutdownGraceMs,
}).then((code) => {
  process.exitCode = code;
  if (code !== 0) process.exit(code);
});
