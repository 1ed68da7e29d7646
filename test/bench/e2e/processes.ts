import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnManaged, type ManagedProcess } from '@berth/local-infra';
import { trackChild } from '../lifecycle';

export const repoRoot = resolve(__dirname, '..', '..', '..');

/** A folder for the logs of one benchmark run (kept, printed at the end). */
export function benchLogDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'berth-bench-e2e-'));
}

/**
 * Runs a TypeScript entry point as npm start does (`node -r ./deploy/runtime/ts-hook.js <entry>`), output to a log
 * file, and resolves once it prints a line matching `ready`.
 */
export async function startNodeProcess(options: {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  ready: RegExp;
  logDir: string;
  timeoutMs?: number;
}): Promise<{ proc: ManagedProcess; match: RegExpMatchArray }> {
  const proc = spawnManaged({
    command: process.execPath,
    args: ['-r', join(repoRoot, 'deploy', 'runtime', 'ts-hook.js'), options.entry],
    env: options.env,
    cwd: repoRoot,
    logFile: join(options.logDir, `${options.name}.log`),
  });
  trackChild(proc.child);
  try {
    return { proc, match: await proc.waitForLine(options.ready, options.timeoutMs ?? 120_000) };
  } catch (error) {
    await proc.stop(1000);
    throw error;
  }
}
