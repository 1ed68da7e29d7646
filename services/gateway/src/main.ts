/**
 * The gateway process: `node -r ./deploy/runtime/ts-hook.js services/gateway/src/main.ts`.
 *
 * Reads the configuration, starts tracing when an OTLP endpoint is configured (the SDK is only loaded then), then
 * loads the server code, so the HTTP instrumentation sees those modules load ({@link runService}). See
 * {@link runGateway} for what runs and how it stops.
 */
import { runService } from '@berth/service';
import { loadConfig } from './config';

void runService({
  name: 'gateway',
  config: () => loadConfig(process.env),
  telemetry: (config) => ({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint }),
  start: async (config) => (await import('./run-gateway')).runGateway(config),
  stoppingMessage: 'Shutting down: finishing in-flight requests',
}).then((code) => {
  process.exitCode = code;
});
