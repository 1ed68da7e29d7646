/**
 * The dispatcher process: `node -r ./deploy/runtime/ts-hook.js services/dispatcher/src/main.ts`.
 *
 * Validates its environment, starts tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and only then loads the
 * service so that the MongoDB and HTTP instrumentations see those modules load ({@link runService}). See
 * {@link runDispatcher}. SIGTERM/SIGINT: stop pulling, let running attempts finish, close connections, exit 0.
 */
import { runService } from '@berth/service';
import { loadConfig } from './config';

void runService({
  name: 'dispatcher',
  config: () => loadConfig(process.env),
  telemetry: (config) => ({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint }),
  start: async (config) => (await import('./run-dispatcher')).runDispatcher(config),
}).then((code) => {
  process.exitCode = code;
});
