import { context, propagation, type Context } from '@opentelemetry/api';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/nats-core';

/**
 * Writes the active W3C trace context (`traceparent`, `tracestate`) into NATS headers, so the consumer's span
 * continues the publisher's trace. A no-op when no OpenTelemetry SDK is running.
 */
export function injectTraceContext(target: MsgHdrs, from: Context = context.active()): MsgHdrs {
  propagation.inject(from, target, { set: (carrier, key, value) => carrier.set(key, value) });
  return target;
}

/** Reads the W3C trace context from a message's headers, as the parent of the consumer's span. */
export function extractTraceContext(source: MsgHdrs | undefined): Context {
  if (!source) return context.active();
  return propagation.extract(context.active(), source, {
    get: (carrier, key) => (carrier.has(key) ? carrier.get(key) : undefined),
    keys: (carrier) => carrier.keys(),
  });
}

/** New NATS headers. */
export function createHeaders(): MsgHdrs {
  return natsHeaders();
}
