import { trace } from '@opentelemetry/api';
import pino, { type Logger, type DestinationStream } from 'pino';
import type { LogContextStore } from './log-context';
import { prettyLine } from './pretty-line';

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** The service name, on every line as `service`. */
  service: string;
  level?: string;
  /** `pretty` for a terminal (one line per record, fields inline: see `prettyLine`), `json` for production. */
  format?: 'json' | 'pretty';
  /** With `pretty`: ANSI colours (default true; `npm start` pipes the output but shows it in a terminal). */
  colors?: boolean;
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
  if (options.format === 'pretty') return pino(base, prettyDestination(options.colors ?? true));
  return pino(base);
}

/**
 * Formats each record in process and writes it to stdout at once (stdout is synchronous on Linux for files, pipes
 * and terminals), so the fatal line of a service that exits right after is never lost in a worker's buffer.
 */
function prettyDestination(colors: boolean): DestinationStream {
  return { write: (json: string) => void process.stdout.write(`${prettyLine(json, { colors })}\n`) };
}
