/**
 * The gateway process: `node -r ./deploy/runtime/ts-hook.js services/gateway/src/main.ts`.
 *
 * Reads the configuration, starts tracing when an OTLP endpoint is configured, then loads the server code, so the
 * HTTP and Koa instrumentations see those modules load. See {@link runGateway} for what runs and how it stops.
 */
import { loadConfig, type GatewayConfig } from './config';

/** Longest wait at exit for the last spans to reach the collector. */
const TRACE_FLUSH_TIMEOUT_MS = 3000;

/** Flushes spans at exit; a no-op when tracing is off. */
type StopTracing = () => Promise<void>;

/**
 * Starts the OpenTelemetry SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. The SDK is only loaded then: it costs
 * about 60 MB of memory and a second of start-up that a gateway without tracing should not pay.
 */
async function startTracing(config: GatewayConfig): Promise<StopTracing> {
  if (!config.otlpEndpoint) return async () => undefined;
  const { startTelemetry } = await import('@berth/telemetry');
  const telemetry = startTelemetry({ serviceName: config.serviceName, otlpEndpoint: config.otlpEndpoint });
  return () =>
    Promise.race([
      telemetry.shutdown(),
      new Promise<never>((_resolve, reject) =>
        setTimeout(() => reject(new Error('trace flush timed out')), TRACE_FLUSH_TIMEOUT_MS).unref(),
      ),
    ]);
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const stopTracing = await startTracing(config);
  const { runGateway } = await import('./run-gateway');
  const running = await runGateway(config);

  const stop = (signal: NodeJS.Signals): void => {
    running.logger.info({ signal }, 'Shutting down: finishing in-flight requests');
    running
      .stop()
      .then(() =>
        // Spans that cannot be exported (collector down) are lost, not a reason to fail the shutdown.
        stopTracing().catch((error: unknown) => running.logger.warn({ err: error }, 'Could not flush traces')),
      )
      .then(
        () => process.exit(0),
        (error: unknown) => {
          running.logger.error({ err: error }, 'Shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `gateway failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
