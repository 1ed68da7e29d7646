import { join } from 'node:path';
import { Queue } from 'bullmq';
import { getFreePort, spawnManaged } from '@berth/local-infra';
import type { BenchTarget } from '../berth-target';
import { trackChild } from '../lifecycle';
import { PEER_QUEUE } from './peer-gateway';
import { startRedis } from './redis';

/**
 * Starts the peer stack for one benchmark round: a dedicated redis-server, then peer-gateway.ts as a child
 * process on a free port; resolves once it prints `peer listening on <port>`.
 */
export async function startPeerForBench(secret: string): Promise<BenchTarget> {
  const redis = await startRedis();
  try {
    const port = await getFreePort('127.0.0.1');
    const gateway = spawnManaged({
      command: process.execPath,
      args: [
        '-r',
        join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'),
        join(__dirname, 'peer-gateway.ts'),
      ],
      env: {
        ...process.env,
        PEER_PORT: String(port),
        REDIS_URL: redis.url,
        STRIPE_WEBHOOK_SECRET: secret,
        NODE_ENV: 'production',
      },
    });
    trackChild(gateway.child);
    try {
      await gateway.waitForLine(/^peer listening on \d+/, 30000);
    } catch (error) {
      await gateway.stop(1000);
      throw error;
    }
    return {
      url: `http://127.0.0.1:${port}/webhooks/stripe`,
      pid: gateway.child.pid ?? 0,
      infraPid: redis.pid,
      async countAccepted() {
        const queue = new Queue(PEER_QUEUE, { connection: { host: '127.0.0.1', port: redis.port } });
        try {
          return await queue.getWaitingCount();
        } finally {
          await queue.close();
        }
      },
      async stop() {
        await gateway.stop(5000);
        await redis.stop();
      },
    };
  } catch (error) {
    await redis.stop();
    throw error;
  }
}
