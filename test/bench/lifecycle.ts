/**
 * Keeps track of every process the benchmark starts so that nothing outlives it: graceful stops on
 * SIGINT/SIGTERM/errors, a SIGKILL sweep when the process exits, and an overall deadline.
 */
import type { ChildProcess } from 'node:child_process';

const stops = new Set<() => Promise<void>>();
const children = new Set<ChildProcess>();

/** Remembers a child process so it is SIGKILLed if it is still running when the benchmark exits. */
export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Registers a graceful stop to run on interruption; call the returned function once stopped normally. */
export function trackStop(stop: () => Promise<void>): () => void {
  stops.add(stop);
  return () => stops.delete(stop);
}

/** Runs all registered stops (each bounded to `graceMs`), then clears them. */
export async function stopAll(graceMs = 10000): Promise<void> {
  const pending = [...stops];
  stops.clear();
  await Promise.all(
    pending.map((stop) =>
      Promise.race([
        stop().catch(() => undefined),
        new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref()),
      ]),
    ),
  );
}

function killLeftovers(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}

/**
 * Installs SIGINT/SIGTERM/uncaught-error handlers and a watchdog that aborts after `deadlineMs`.
 * Returns a function that removes the watchdog (call it when the benchmark finished in time).
 */
export function installCleanup(deadlineMs: number): () => void {
  const abort = (reason: string, code: number): void => {
    process.stderr.write(`\nbench: ${reason}; stopping child processes\n`);
    void stopAll(5000).finally(() => process.exit(code));
  };
  process.once('SIGINT', () => abort('interrupted', 130));
  process.once('SIGTERM', () => abort('terminated', 143));
  process.once('uncaughtException', (error) => abort(`uncaught error: ${error.stack ?? error}`, 1));
  process.once('unhandledRejection', (error) => abort(`unhandled rejection: ${String(error)}`, 1));
  process.once('exit', killLeftovers);
  const watchdog = setTimeout(
    () => abort(`overall deadline of ${Math.round(deadlineMs / 1000)} s exceeded`, 1),
    deadlineMs,
  );
  watchdog.unref();
  return () => clearTimeout(watchdog);
}
