export { createLogger } from './create-logger';
export type { BerthLogger, LoggerOptions } from './create-logger';
export { prettyLine, ERROR_MARKER } from './pretty-line';
export type { PrettyLineOptions } from './pretty-line';
export { LogContextStore } from './log-context';
export type { LogContext } from './log-context';
export { PinoNestLogger } from './pino-nest-logger';
export { exitOnSignals } from './exit-on-signals';
export type { ExitOnSignalsOptions } from './exit-on-signals';
