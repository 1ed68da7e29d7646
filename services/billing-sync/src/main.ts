/**
 * The billing-sync process: `node -r ./deploy/runtime/ts-hook.js services/billing-sync/src/main.ts`.
 *
 * Validates its environment, starts tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and only then loads the
 * service (MongoDB driver, Stripe client, Nest app), so that the MongoDB and HTTP instrumentations see those modules
 * load ({@link runService}). See {@link runBillingSync} for what runs. SIGTERM/SIGINT: stop pulling, let running
 * handlers finish, close connections, flush the last spans, exit 0.
 */
import { runService } from '@berth/service';
import { loadConfig } from './config';

void runService({
  name: 'billing-sync',
  config: () => loadConfig(process.env),
  telemetry: (config) => ({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint }),
  start: async (config) => (await import('./run-billing-sync')).runBillingSync(config),
}).then((code) => {
  process.exitCode = code;
});
