/**
 * The dispatcher process: `node -r ./deploy/runtime/ts-hook.js services/dispatcher/src/main.ts`.
 *
 * Validates its environment, starts tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and only then loads the
 * service so that the MongoDB and HTTP instrumentations see those modules load. See {@link runDispatcher}.
 * SIGTERM/SIGINT: stop pulling, let running attempts finish, close connections, exit 0.
 */
import { exitOnSignals } from '@berth/logger';
import { startTelemetry } from '@berth/telemetry';
import { loadConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig();
  const telemetry = startTelemetry({
    serviceName: config.OTEL_SERVICE_NAME ?? 'dispatcher',
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const { runDispatcher } = await import('./run-dispatcher');
  const running = await runDispatcher(config);
  exitOnSignals(
    async () => {
      await running.stop();
      await telemetry.shutdown();
    },
    { logger: running.logger, exit: (code) => process.exit(code) },
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `dispatcher failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
