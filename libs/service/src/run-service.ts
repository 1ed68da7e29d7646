import { exitOnSignals, type BerthLogger } from '@berth/logger';
import { startTelemetry, type Telemetry, type TelemetryOptions } from '@berth/telemetry';

/** What {@link runService} needs of a started service: {@link RunningService} is one. */
export interface StoppableService {
  readonly logger: BerthLogger;
  stop(): Promise<void>;
}

/** Options of {@link runService}. */
export interface RunServiceOptions<C, S extends StoppableService> {
  /** Names the process in the line written when it fails to start (`<name> failed to start: …`). */
  name: string;
  /** Reads and validates the configuration (`main.ts`: from `process.env`); a throw is a failed start. */
  config: () => C;
  /** The process's tracing, from its configuration; off when `otlpEndpoint` is unset. */
  telemetry: (config: C) => TelemetryOptions;
  /**
   * Loads the service with a dynamic `import()` and starts it (usually through {@link startService}). Called after
   * tracing has started, so that what it loads (the MongoDB driver, Koa, the HTTP clients) is instrumented.
   */
  start: (config: C) => Promise<S>;
  /** Default SIGTERM and SIGINT. */
  signals?: NodeJS.Signals[];
  /** Logged as a stop begins, after `<signal> received: stopping`, e.g. what the stop waits for. */
  stoppingMessage?: string;
  /**
   * A stop that has not finished this long after the signal gives up: `Shutdown took too long` is logged and the
   * run resolves 1 (a hung close must not keep a replica that already released its work alive). Unset: no deadline.
   */
  stopDeadlineMs?: (config: C) => number;
  /** Where a failed start is written; default the process's stderr. */
  errorOutput?: { write(text: string): unknown };
}

/**
 * The lifecycle of a service process, as Temporal's `Worker.run` or graphile-worker's `run()` give one: reads the
 * configuration, starts tracing, then loads and starts the service; on SIGTERM or SIGINT stops it once (a second
 * signal is logged and ignored), flushes the last spans, and resolves with the exit code: 0 after a clean stop, 1
 * when the stop failed or the start did (then `<name> failed to start: <stack>` is written). `main.ts` sets
 * `process.exitCode` from it; the library never exits the process itself.
 */
export async function runService<C, S extends StoppableService>(options: RunServiceOptions<C, S>): Promise<number> {
  let telemetry: Telemetry | undefined;
  try {
    const config = options.config();
    telemetry = startTelemetry(options.telemetry(config));
    const tracing = telemetry;
    const running = await options.start(config);
    return await new Promise<number>((resolve) => {
      exitOnSignals(
        async () => {
          if (options.stoppingMessage) running.logger.info(options.stoppingMessage);
          const deadlineMs = options.stopDeadlineMs?.(config);
          const deadline =
            deadlineMs === undefined
              ? undefined
              : setTimeout(() => {
                  running.logger.error({ deadlineMs }, 'Shutdown took too long');
                  resolve(1);
                }, deadlineMs).unref();
          try {
            await running.stop();
            await tracing.shutdown();
          } finally {
            clearTimeout(deadline);
          }
        },
        { logger: running.logger, signals: options.signals, exit: resolve },
      );
    });
  } catch (error) {
    (options.errorOutput ?? process.stderr).write(
      `${options.name} failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    await telemetry?.shutdown();
    return 1;
  }
}
