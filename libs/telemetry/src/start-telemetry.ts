import { NodeSDK } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KoaInstrumentation } from '@opentelemetry/instrumentation-koa';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { resourceFromAttributes } from '@opentelemetry/resources';

/** Options for {@link startTelemetry}. */
export interface TelemetryOptions {
  serviceName: string;
  /** OTLP/HTTP base URL (e.g. http://jaeger:4318); tracing stays off when unset. */
  otlpEndpoint?: string;
  /** Service version on every span. */
  serviceVersion?: string;
}

/** A running tracer; `shutdown` flushes the spans not yet exported. */
export interface Telemetry {
  readonly enabled: boolean;
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry NodeSDK with OTLP export and the HTTP (incoming requests, calls to Stripe), Koa and
 * MongoDB instrumentations. W3C trace context is the propagator, which the messaging library uses to carry a trace
 * through NATS headers. Call it before the instrumented modules are loaded (first thing in main.ts).
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (!options.otlpEndpoint) return { enabled: false, shutdown: async () => undefined };
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.version': options.serviceVersion ?? '0.1.0' }),
    traceExporter: new OTLPTraceExporter({ url: `${options.otlpEndpoint.replace(/\/$/, '')}/v1/traces` }),
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => /^\/(healthz|readyz|metrics)/.test(request.url ?? '') }),
      new KoaInstrumentation(),
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}
