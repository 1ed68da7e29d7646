/**
 * The identity-sync process: `node -r ./deploy/runtime/ts-hook.js services/identity-sync/src/main.ts`.
 *
 * Validates its environment, starts tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and only then loads the
 * service (MongoDB driver, Nest app), so that the MongoDB instrumentation sees those modules load. See
 * {@link runIdentitySync} for what runs. SIGTERM/SIGINT: stop pulling, let running handlers finish, close
 * connections, flush the last spans, exit 0.
 */
import { exitOnSignals } from '@berth/logger';
import { startTelemetry } from '@berth/telemetry';
import { loadConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig();
  const telemetry = startTelemetry({
    serviceName: config.OTEL_SERVICE_NAME ?? 'identity-sync',
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const { runIdentitySync } = await import('./run-identity-sync');
  const running = await runIdentitySync(config);

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
    `identity-sync failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
