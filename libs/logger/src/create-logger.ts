import { trace } from '@opentelemetry/api';
import pino, { type Logger, type DestinationStream } from 'pino';
import type { LogContextStore } from './log-context';

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** The service name, on every line as `service`. */
  service: string;
  level?: string;
  /** `pretty` for a terminal, `json` for production. */
  format?: 'json' | 'pretty';
  /** Adds the current event or job fields to every line. */
  context?: LogContextStore;
  /** Where lines go (tests capture them); stdout when unset. */
  destination?: DestinationStream;
}

/** A pino logger. */
export type BerthLogger = Logger;

/**
 * Creates the pino logger a service passes to every library. Each line carries the fields of the event or job in
 * progress (from the {@link LogContextStore}) and the active OpenTelemetry `traceId`/`spanId`.
 */
export function createLogger(options: LoggerOptions): BerthLogger {
  const mixin = (): Record<string, unknown> => {
    const fields: Record<string, unknown> = { ...(options.context?.current() ?? {}) };
    const span = trace.getActiveSpan();
    if (span) {
      const spanContext = span.spanContext();
      fields.traceId = spanContext.traceId;
      fields.spanId = spanContext.spanId;
    }
    return fields;
  };
  const base = { level: options.level ?? 'info', base: { service: options.service }, mixin };
  if (options.destination) return pino(base, options.destination);
  if (options.format === 'pretty') {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } });
  }
  return pino(base);
}
