import type { IncomingMessage } from 'node:http';

/** Options for {@link startTelemetry}. */
export interface TelemetryOptions {
  /** `service.name` on every span (the service's `OTEL_SERVICE_NAME`, else its own name). */
  serviceName: string;
  /** OTLP/HTTP base URL (e.g. http://jaeger:4318); tracing stays off, and the SDK is not even loaded, when unset. */
  otlpEndpoint?: string;
  /** Service version on every span. */
  serviceVersion?: string;
}

/** A running tracer (or the no-op one); `shutdown` flushes the spans not yet exported. */
export interface Telemetry {
  readonly enabled: boolean;
  /**
   * Exports the spans still buffered and stops the SDK. Resolves after at most `timeoutMs` (default 3000) even when
   * the collector does not answer: spans that cannot be exported are lost, which is no reason to hang a shutdown.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** Paths whose incoming requests make no span: probes and scrapes, every few seconds, tell nothing. */
const UNTRACED_PATHS = /^\/(healthz|readyz|metrics)(\/|\?|$)/;

const DISABLED: Telemetry = { enabled: false, shutdown: async () => undefined };

/**
 * Starts the OpenTelemetry NodeSDK exporting spans over OTLP/HTTP to `<otlpEndpoint>/v1/traces`, with the HTTP
 * (incoming requests, calls to Stripe), Koa and MongoDB instrumentations, and W3C trace context as the propagator
 * (the messaging library carries it through NATS headers). Call it first thing in `main.ts`, before the modules it
 * instruments (`mongodb`, `koa`, the app) are loaded: load the app with a dynamic `import()` after it.
 *
 * Without `otlpEndpoint` nothing is loaded: the SDK and its instrumentations are required inside this function, so
 * a service without tracing does not pay their memory (about 60 MB) and start-up time. Only traces are exported:
 * metrics are Prometheus' business (`/metrics`), logs go to stdout.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (!options.otlpEndpoint) return DISABLED;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on (see above) */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { KoaInstrumentation } =
    require('@opentelemetry/instrumentation-koa') as typeof import('@opentelemetry/instrumentation-koa');
  const { MongoDBInstrumentation } =
    require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  /* eslint-enable @typescript-eslint/no-require-imports */

  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': options.serviceVersion ?? '0.1.0',
    }),
    traceExporter: new OTLPTraceExporter({ url: `${options.otlpEndpoint.replace(/\/+$/, '')}/v1/traces` }),
    // Explicitly none: left unset, the SDK would add OTLP metric and log exporters from the OTEL_* defaults.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.test(request.url ?? ''),
      }),
      new KoaInstrumentation(),
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  return {
    enabled: true,
    shutdown: (timeoutMs = 3000) => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([
        sdk.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
          timer.unref();
        }),
      ]).finally(() => clearTimeout(timer));
    },
  };
}
