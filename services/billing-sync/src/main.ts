/**
 * The billing-sync process: `node -r ./deploy/runtime/ts-hook.js services/billing-sync/src/main.ts`.
 *
 * Validates its environment, starts tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and only then loads the
 * service (MongoDB driver, Stripe client, Nest app), so that the MongoDB and HTTP instrumentations see those modules
 * load. See {@link runBillingSync} for what runs. SIGTERM/SIGINT: stop pulling, let running handlers finish, close
 * connections, flush the last spans, exit 0.
 */
import { exitOnSignals } from '@berth/logger';
import { startTelemetry } from '@berth/telemetry';
import { loadConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig();
  const telemetry = startTelemetry({
    serviceName: config.OTEL_SERVICE_NAME ?? 'billing-sync',
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const { runBillingSync } = await import('./run-billing-sync');
  const running = await runBillingSync(config);

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
    `billing-sync failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
