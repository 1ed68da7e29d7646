import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getFreePort, spawnManaged } from '@berth/local-infra';
import { durableRedisArgs } from '../peer/redis';

/** A redis-server started for the benchmark. */
export interface BenchRedis {
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Starts /usr/bin/redis-server on a free loopback port (never the shared 6379) in a temporary folder, with the
 * append-only file fsynced on every write (`appendfsync always`: the durability of JetStream's
 * `sync_interval: always`), no RDB snapshots, and `noeviction` as BullMQ requires.
 */
export async function startBenchRedis(command = '/usr/bin/redis-server'): Promise<BenchRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'berth-jobs-bench-redis-'));
  const port = await getFreePort('127.0.0.1');
  if (port === 6379) throw new Error('refusing to use port 6379');
  const proc = spawnManaged({
    command,
    args: durableRedisArgs(port, dir),
  });
  try {
    await proc.waitForLine(/Ready to accept connections/, 15000);
  } catch (error) {
    await proc.stop(1000);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    pid: proc.child.pid ?? 0,
    async stop() {
      await proc.stop(5000);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
