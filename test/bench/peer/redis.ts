import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { getFreePort, spawnManaged, type ManagedProcess } from '@berth/local-infra';
import { trackChild } from '../lifecycle';

/** A dedicated redis-server for one benchmark round (never the shared one on 6379). */
export interface RedisHandle {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** SIGTERM, await exit, remove the data folder. */
  stop(): Promise<void>;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** /usr/bin/redis-server, else the first `redis-server` on PATH. */
function findRedisServer(): string {
  const candidates = [
    '/usr/bin/redis-server',
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'redis-server')),
  ];
  const found = candidates.find(isExecutable);
  if (!found) throw new Error('redis-server not found in /usr/bin or on PATH');
  return found;
}

/**
 * The redis-server arguments of every benchmark Redis: loopback `port`, data in `dir`, logging to stdout, in the
 * foreground, AOF fsynced on every write (`appendfsync always`, the durable setting comparable to JetStream's
 * `sync_interval: always`), no RDB snapshots and `noeviction` (what BullMQ requires).
 */
export function durableRedisArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--logfile',
    '',
    '--daemonize',
    'no',
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--save',
    '',
    '--maxmemory-policy',
    'noeviction',
  ];
}

/**
 * Starts redis-server on a free loopback port with a temporary data folder, AOF fsynced on every write
 * (`appendfsync always`, the durable setting comparable to JetStream's `sync_interval: always`), no RDB
 * snapshots and `noeviction` (what BullMQ requires). Resolves once the log says it accepts connections.
 */
export async function startRedis(): Promise<RedisHandle> {
  const command = findRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'berth-bench-redis-'));
  let lastError: unknown;
  // The free port is only reserved until we close the probe socket, so retry a lost race a couple of times.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await getFreePort('127.0.0.1');
    const args = durableRedisArgs(port, dir);
    const proc: ManagedProcess = spawnManaged({ command, args });
    proc.child.on('error', () => undefined); // spawn failures surface as exit/timeout below
    trackChild(proc.child);
    try {
      await proc.waitForLine(/Ready to accept connections/, 15000);
    } catch (error) {
      lastError = error;
      await proc.stop(1000);
      continue;
    }
    return {
      url: `redis://127.0.0.1:${port}`,
      port,
      pid: proc.child.pid ?? 0,
      async stop() {
        await proc.stop(5000);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError;
}
