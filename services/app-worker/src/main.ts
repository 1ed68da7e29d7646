/**
 * The queue worker: `node -r ./deploy/runtime/ts-hook.js services/app-worker/src/main.ts` (`npm start -w @berth/app-worker`).
 * A process with no web server that runs the jobs of the modules `QueueWorkerModule` imports. Logs
 * `Queue worker ready` once its consumers are pulling; on SIGTERM it stops taking jobs, lets running ones finish
 * (up to WORKER_SHUTDOWN_GRACE_MS) and exits 0.
 */
import 'reflect-metadata';
import { exitOnSignals } from '@berth/logger';
import { startTelemetry } from '@berth/telemetry';
import { loadAppWorkerConfig } from './config';

async function main(): Promise<void> {
  const config = loadAppWorkerConfig();
  const telemetry = startTelemetry({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint });
  const { startQueueWorker } = await import('./start-queue-worker');
  const worker = await startQueueWorker(config);
  exitOnSignals(
    async () => {
      await worker.stop();
      await telemetry.shutdown();
    },
    { logger: worker.logger, exit: (code) => process.exit(code) },
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `app-worker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
