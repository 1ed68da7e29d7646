/**
 * The console process: `node -r ./deploy/runtime/ts-hook.js services/console/src/main.ts`.
 *
 * Validates its environment (refusing to start without `CONSOLE_TOKENS` and `CONSOLE_SIGNING_KEY`), starts tracing
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, then loads and runs the console ({@link runService}, {@link runConsole}).
 * SIGTERM/SIGINT: stop serving, close connections, exit 0.
 */
import { runService } from '@berth/service';
import { loadConfig } from './config';

void runService({
  name: 'console',
  config: () => loadConfig(process.env),
  telemetry: (config) => ({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint }),
  start: async (config) => (await import('./run-console')).runConsole(config),
}).then((code) => {
  process.exitCode = code;
});
