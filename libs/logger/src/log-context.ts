import { AsyncLocalStorage } from 'node:async_hooks';

/** Fields that every log line written while handling one event or job carries. */
export interface LogContext {
  jobName?: string;
  jobId?: string;
  queue?: string;
  attempt?: number;
  eventId?: string;
  provider?: string;
  [key: string]: unknown;
}

/**
 * Holds the current event's or job's fields for the logger. One instance per process is created by the service
 * and passed to the logger and the consumer runner, so libraries share it without a global.
 */
export class LogContextStore {
  private readonly storage = new AsyncLocalStorage<LogContext>();

  /** Runs `fn` with `fields` added to the current context for every line logged inside it. */
  run<T>(fields: LogContext, fn: () => T): T {
    const parent = this.storage.getStore();
    return this.storage.run(parent ? { ...parent, ...fields } : fields, fn);
  }

  /** The fields in force now, if any. */
  current(): LogContext | undefined {
    return this.storage.getStore();
  }
}
