/** Options for {@link prettyLine}. */
export interface PrettyLineOptions {
  /** ANSI colours (level, fields, and error and fatal lines in red). */
  colors: boolean;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const ANSI = {
  reset: '\x1b[0m',
  dim: '\x1b[2m',
  bold: '\x1b[1m',
  red: '\x1b[31m',
  yellow: '\x1b[33m',
  green: '\x1b[32m',
  blue: '\x1b[34m',
  inverse: '\x1b[7m',
};
const LEVEL_COLOR: Record<number, string> = {
  10: ANSI.dim,
  20: ANSI.blue,
  30: ANSI.green,
  40: ANSI.yellow,
  50: ANSI.red,
  60: ANSI.red + ANSI.inverse,
};
/** Fields the line shows in its own place, or that say nothing in a terminal. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'spanId']);
/** What marks an error or fatal line, so a failing service stands out among seven. */
export const ERROR_MARKER = '✖';

/**
 * One pino record (a JSON line) as one terminal line: `HH:MM:ss.mmm LEVEL message key=value …`, the fields inline
 * (strings bare unless they hold spaces, objects as JSON, an error as `Type: message (at its top stack frame)`).
 * Error and fatal lines begin with {@link ERROR_MARKER} and, with colours, are red (fatal inverted). The service
 * name is left out: `npm start` prefixes every line with it. A line that is not JSON is returned as it came.
 */
export function prettyLine(json: string, options: PrettyLineOptions): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.replace(/\n$/, '');
  }
  const level = typeof record.level === 'number' ? record.level : 30;
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const label = (LEVELS[level] ?? `L${level}`).padEnd(5);
  const fields = Object.entries(record)
    .filter(([key, value]) => !OMITTED.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${fieldText(value)}`);
  const message = typeof record.msg === 'string' ? record.msg : '';
  const severe = level >= 50;
  if (!options.colors)
    return [severe ? `${time} ${ERROR_MARKER} ${label}` : `${time}   ${label}`, message, ...fields]
      .filter(Boolean)
      .join(' ');
  const color = LEVEL_COLOR[level] ?? '';
  const head = severe
    ? `${ANSI.dim}${time}${ANSI.reset} ${color}${ANSI.bold}${ERROR_MARKER} ${label}${ANSI.reset}`
    : `${ANSI.dim}${time}${ANSI.reset}   ${color}${label}${ANSI.reset}`;
  const body = severe ? `${ANSI.red}${ANSI.bold}${message}${ANSI.reset}` : message;
  const tail = fields.length > 0 ? `${severe ? ANSI.red : ANSI.dim}${fields.join(' ')}${ANSI.reset}` : '';
  return [head, body, tail].filter(Boolean).join(' ');
}

function fieldText(value: unknown): string {
  if (isSerializedError(value)) return quote(errorText(value));
  if (typeof value === 'string') return quote(value);
  return JSON.stringify(value) ?? String(value);
}

function quote(text: string): string {
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

/** An error as pino's serializer writes it (the causes' messages already joined into `message`). */
interface SerializedError {
  type?: string;
  message: string;
  stack?: string;
}

function isSerializedError(value: unknown): value is SerializedError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SerializedError).message === 'string' &&
    ('stack' in value || 'type' in value)
  );
}

/** `Type: message (at top frame)`. */
function errorText(error: SerializedError): string {
  const frame = error.stack?.split('\n').find((line) => line.trim().startsWith('at '));
  return `${error.type ?? 'Error'}: ${error.message}${frame ? ` (${frame.trim()})` : ''}`;
}
