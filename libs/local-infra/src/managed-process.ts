import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

/** A server process started by this library: wait for it to be ready, signal it, stop it. */
export interface ManagedProcess {
  readonly child: ChildProcess;
  /** Resolves with the first output line matching `pattern`, or rejects when the process exits or time runs out. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** `signal` (SIGTERM), then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number, signal?: NodeJS.Signals): Promise<void>;
  /** Resolves when the process has exited, with its exit code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnOptions {
  command: string;
  args: string[];
  /** Appends the process's output to this file when set. */
  logFile?: string;
  /** Prefix for output echoed to the parent (for npm start); nothing is echoed when unset. */
  echoPrefix?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this user and group (a root parent starting PostgreSQL, which refuses to run as root). */
  uid?: number;
  gid?: number;
}

/** Spawns a server process and tracks its output lines so callers can await readiness messages. */
export function spawnManaged(options: SpawnOptions): ManagedProcess {
  const child = spawn(options.command, options.args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: options.env,
    cwd: options.cwd,
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
  const log: WriteStream | undefined = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  const seen: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  void exited.then(() => log?.end());

  let partial = '';
  const onData = (chunk: Buffer): void => {
    log?.write(chunk);
    const text = partial + chunk.toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (options.echoPrefix) process.stdout.write(`${options.echoPrefix} ${line}\n`);
      if (seen.length < 500) seen.push(line);
      for (const listener of listeners) listener(line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

  const waitForLine = (pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      for (const line of seen) {
        const match = line.match(pattern);
        if (match) return resolve(match);
      }
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(
            `${options.command}: no line matching ${pattern} within ${timeoutMs} ms:\n${seen.slice(-20).join('\n')}`,
          ),
        );
      }, timeoutMs);
      const listener = (line: string): void => {
        const match = line.match(pattern);
        if (match) {
          cleanup();
          resolve(match);
        }
      };
      const onExit = (): void => {
        cleanup();
        reject(new Error(`${options.command} exited before ready:\n${seen.slice(-20).join('\n')}`));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        listeners.delete(listener);
        child.off('exit', onExit);
      };
      listeners.add(listener);
      child.once('exit', onExit);
    });

  const stop = async (graceMs = 5000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  return { child, waitForLine, stop, exited };
}
