import type { BerthLogger } from './create-logger';

/** Options for {@link exitOnSignals}. */
export interface ExitOnSignalsOptions {
  logger: BerthLogger;
  /** Default SIGTERM and SIGINT. */
  signals?: NodeJS.Signals[];
  /** Ends the process: `(code) => process.exit(code)` in a service's main.ts (libraries never exit themselves). */
  exit: (code: number) => void;
}

/**
 * On SIGTERM (a deploy) or SIGINT: runs `close` once (for a Nest app: stop taking jobs, let running ones finish,
 * close connections), then calls `exit(0)`; `exit(1)` if closing fails. A second signal while closing is logged and
 * ignored: the platform's own deadline (SIGKILL) is the limit. Returns a function that removes the handlers.
 *
 * Nest's `enableShutdownHooks` is not used for this: it re-raises the signal after closing, so the process ends
 * "killed by SIGTERM" instead of exiting 0.
 */
export function exitOnSignals(close: () => Promise<void>, options: ExitOnSignalsOptions): () => void {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit;
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      options.logger.warn({ signal }, `${signal} received while stopping; still waiting for running jobs`);
      return;
    }
    closing = true;
    options.logger.info({ signal }, `${signal} received: stopping`);
    close().then(
      () => {
        options.logger.info('Stopped');
        exit(0);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'Failed to stop cleanly');
        exit(1);
      },
    );
  };
  signals.forEach((signal) => process.on(signal, onSignal));
  return () => signals.forEach((signal) => process.off(signal, onSignal));
}
