import { join, resolve } from 'node:path';
import { spawnManaged, type ManagedProcess } from '@berth/local-infra';

/** The repository root. */
export const repoRoot = resolve(__dirname, '..', '..');

/** A Berth service run as its own process, as in production: `node -r ./deploy/runtime/ts-hook.js services/<name>/src/main.ts`. */
export interface ServiceProcess {
  readonly name: string;
  readonly process: ManagedProcess;
  /** SIGTERM and wait for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash. */
  kill(): Promise<void>;
}

/**
 * Spawns a service's `main.ts` through the ts-hook with the environment of a test run (JSON logs, a free health
 * port) and `env` over it; its output goes to `logFile` when given.
 */
export function spawnService(options: {
  service: string;
  env: Record<string, string>;
  logFile?: string;
}): ManagedProcess {
  return spawnManaged({
    command: process.execPath,
    args: [
      '-r',
      join(repoRoot, 'deploy', 'runtime', 'ts-hook.js'),
      join(repoRoot, 'services', options.service, 'src', 'main.ts'),
    ],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'test',
      LOG_FORMAT: 'json',
      // A free port: services run side by side here (their default port does not depend on NODE_ENV).
      HEALTH_PORT: '0',
      ...options.env,
    },
    logFile: options.logFile,
    cwd: repoRoot,
  });
}

/** Starts a service and resolves once its output shows `readyLine`. */
export async function startServiceProcess(options: {
  service: string;
  env: Record<string, string>;
  readyLine: RegExp;
  timeoutMs?: number;
  logFile?: string;
}): Promise<ServiceProcess> {
  const proc = spawnService(options);
  try {
    await proc.waitForLine(options.readyLine, options.timeoutMs ?? 30000);
  } catch (error) {
    await proc.stop(1000);
    throw error;
  }
  return {
    name: options.service,
    process: proc,
    async stop() {
      proc.child.kill('SIGTERM');
      const { code } = await proc.exited;
      return code;
    },
    async kill() {
      proc.child.kill('SIGKILL');
      await proc.exited;
    },
  };
}
