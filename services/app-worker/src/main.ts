/**
 * The queue worker: `node -r ./deploy/runtime/ts-hook.js services/app-worker/src/main.ts` (`npm start -w @berth/app-worker`).
 * A process with no web server that runs the jobs of the modules `QueueWorkerModule` imports. Logs
 * `Queue worker ready` once its consumers are pulling; on SIGTERM it stops taking jobs, lets running ones finish
 * (up to SHUTDOWN_GRACE_MS) and exits 0. Tracing starts before the worker loads ({@link runService}).
 */
import 'reflect-metadata';
import { runService } from '@berth/service';
import { loadAppWorkerConfig } from './config';

void runService({
  name: 'app-worker',
  config: () => loadAppWorkerConfig(process.env),
  telemetry: (config) => ({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint }),
  start: async (config) => (await import('./start-queue-worker')).startQueueWorker(config),
}).then((code) => {
  process.exitCode = code;
});
