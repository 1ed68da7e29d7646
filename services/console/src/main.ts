/**
 * The console process: `node -r ./deploy/runtime/ts-hook.js services/console/src/main.ts`.
 *
 * Validates its environment (refusing to start without `CONSOLE_TOKENS` and `CONSOLE_SIGNING_KEY`), starts tracing
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, then runs the console ({@link runConsole}). SIGTERM/SIGINT: stop
 * serving, close connections, exit 0.
 */
import { exitOnSignals } from '@berth/logger';
import { startTelemetry } from '@berth/telemetry';
import { loadConfig } from './config';

async function main(): Promise<void> {
  const config = loadConfig();
  const telemetry = startTelemetry({
    serviceName: config.OTEL_SERVICE_NAME ?? 'console',
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const { runConsole } = await import('./run-console');
  const running = await runConsole(config);
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
    `console failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
