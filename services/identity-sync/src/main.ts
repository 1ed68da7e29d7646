/**
 * The identity-sync process: `node -r ./deploy/runtime/ts-hook.js services/identity-sync/src/main.ts`.
 *
 * Validates its environment, starts tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and only then loads the
 * service (MongoDB driver, Nest app), so that the MongoDB instrumentation sees those modules load
 * ({@link runService}). See {@link runIdentitySync} for what runs. SIGTERM/SIGINT: stop pulling, let running
 * handlers finish, close connections, flush the last spans, exit 0.
 */
import { runService } from '@berth/service';
import { loadConfig } from './config';

void runService({
  name: 'identity-sync',
  config: () => loadConfig(process.env),
  telemetry: (config) => ({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint }),
  start: async (config) => (await import('./run-identity-sync')).runIdentitySync(config),
}).then((code) => {
  process.exitCode = code;
});
