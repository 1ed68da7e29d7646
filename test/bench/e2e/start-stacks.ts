/**
 * The systems the whole-path benchmarks compare, started side by side and left up together: the Stripe stand-in
 * both read customers from, Berth as `npm start` runs it, and the seeds' stack. bench:e2e and bench:ingest's mesh
 * mode both start them here, so both measure the same two meshes.
 */
import { join } from 'node:path';
import { getFreePort } from '@berth/local-infra';
import { trackStop } from '../lifecycle';
import { startBerthStack } from './berth-stack';
import { startPeerStack } from './peer-stack';
import { repoRoot, startNodeProcess } from './processes';
import type { E2eStack } from './stack';

/** The stacks up, the stand-in's pid (its CPU counts too), and one stop for everything. */
export interface BenchStacks {
  stacks: E2eStack[];
  standInPid: number;
  stop(): Promise<void>;
}

/**
 * Starts the stand-in, then each of `targets` (`berth`, `peer`) that is listed, in that order. Every stop is also
 * registered with the benchmark's lifecycle, so an interrupted run leaves nothing behind.
 */
export async function startBenchStacks(options: {
  targets: readonly string[];
  logDir: string;
  /** Run Berth on this MongoDB instead of the embedded store. */
  mongoUrl?: string;
  /** The peer's PostgreSQL server, without a database. */
  postgresUrl: string;
}): Promise<BenchStacks> {
  const standInPort = await getFreePort('127.0.0.1');
  const standIn = await startNodeProcess({
    name: 'stripe-stand-in',
    entry: join(repoRoot, 'test', 'support', 'stripe-stand-in', 'main.ts'),
    env: { PATH: process.env.PATH, PORT: String(standInPort) },
    ready: /Stripe stand-in listening/,
    logDir: options.logDir,
  });
  const standInUrl = `http://127.0.0.1:${standInPort}`;
  const untrackStandIn = trackStop(() => standIn.proc.stop(5000));
  const stacks: E2eStack[] = [];
  const untracks: (() => void)[] = [];
  const stop = async (): Promise<void> => {
    for (const stack of stacks.splice(0).reverse()) await stack.stop();
    untracks.splice(0).forEach((untrack) => untrack());
    await standIn.proc.stop(5000);
    untrackStandIn();
  };
  try {
    const add = (stack: E2eStack): void => {
      stacks.push(stack);
      untracks.push(trackStop(() => stack.stop()));
    };
    if (options.targets.includes('berth'))
      add(await startBerthStack({ standInUrl, logDir: options.logDir, mongoUrl: options.mongoUrl }));
    if (options.targets.includes('peer'))
      add(await startPeerStack({ standInUrl, logDir: options.logDir, postgresUrl: options.postgresUrl }));
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { stacks, standInPid: standIn.proc.child.pid ?? 0, stop };
}
