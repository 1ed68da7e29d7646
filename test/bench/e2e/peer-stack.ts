/**
 * The seeds' stack end to end, as seed 000 lays it out: the Fastify receiver (peer-inbox-gateway.ts) writing the
 * inbox row in PostgreSQL and queueing a BullMQ job with its id, the BullMQ worker (peer-inbox-worker.ts), a
 * redis-server of its own with AOF fsynced on every write, and a database of its own on the local PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { getFreePort, type ManagedProcess } from '@berth/local-infra';
import { subscriptionUpdatedEvent } from '../harness';
import { startRedis } from '../peer/redis';
import type { Provider } from './events';
import { PEER_E2E_QUEUE, PEER_INBOX_SCHEMA } from './peer-inbox-schema';
import { startNodeProcess } from './processes';
import { fillerPayload, type E2eStack } from './stack';

/** Options for {@link startPeerStack}. */
export interface PeerStackOptions {
  standInUrl: string;
  logDir: string;
  /** A server URL without database, e.g. `postgres://postgres@127.0.0.1:5432`. */
  postgresUrl: string;
}

const FILL_BATCH = 20_000;

export async function startPeerStack(options: PeerStackOptions): Promise<E2eStack> {
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const database = `berth_bench_peer_${process.pid}_${randomBytes(3).toString('hex')}`;
    const admin = new Client({ connectionString: `${options.postgresUrl}/postgres` });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    stops.push(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    });
    const databaseUrl = `${options.postgresUrl}/${database}`;
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    stops.push(() => db.end());
    await db.query(PEER_INBOX_SCHEMA);

    const redis = await startRedis();
    stops.push(() => redis.stop());
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const port = await getFreePort('127.0.0.1');
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      STRIPE_WEBHOOK_SECRET: secret,
      STRIPE_API_BASE: options.standInUrl,
    };
    const procs: Record<string, ManagedProcess> = {};
    for (const [name, entry, ready] of [
      ['peer-gateway', 'peer-inbox-gateway.ts', /^peer gateway listening/],
      ['peer-worker', 'peer-inbox-worker.ts', /^peer worker ready/],
    ] as const) {
      const { proc } = await startNodeProcess({
        name,
        entry: join(__dirname, entry),
        env: { ...env, PEER_PORT: String(port) },
        ready,
        logDir: options.logDir,
      });
      procs[name] = proc;
      stops.push(() => proc.stop(10_000));
    }
    const queue = new Queue(PEER_E2E_QUEUE, { connection: { host: '127.0.0.1', port: redis.port } });
    stops.push(() => queue.close());

    const rowCount = async (): Promise<number> =>
      Number((await db.query<{ count: string }>('SELECT count(*) FROM webhook_event')).rows[0].count);
    return {
      name: 'seeds (Fastify+PG+BullMQ)',
      providers: ['stripe'],
      secrets: { stripe: secret },
      url: (provider) => `http://127.0.0.1:${port}/webhooks/${provider}`,
      async processes() {
        const backends = await db.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        return {
          ...Object.fromEntries(Object.entries(procs).map(([name, proc]) => [name, proc.child.pid ?? 0])),
          'redis-server': redis.pid,
          ...Object.fromEntries(backends.rows.map((row, index) => [`postgres backend ${index + 1}`, row.pid])),
        };
      },
      rowCount,
      async fillTo(rows) {
        const payload = fillerPayload(subscriptionUpdatedEvent, 0);
        for (let have = await rowCount(); have < rows; have = await rowCount()) {
          const count = Math.min(FILL_BATCH, rows - have);
          await db.query(
            `INSERT INTO webhook_event (provider, event_id, type, payload, received_at, processed_at, attempts)
             SELECT 'stripe', 'evt_fill_' || $1::bigint + g, 'customer.subscription.updated', $2::jsonb, now() - interval '30 days' + g * interval '1 second', now(), 1
             FROM generate_series(1, $3::bigint) AS g`,
            [have, payload, count],
          );
        }
        await db.query('VACUUM ANALYZE webhook_event');
      },
      async waitProcessed(provider: Provider, eventIds: string[], timeoutMs: number) {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
          const left = Object.values(counts).reduce((sum, count) => sum + count, 0);
          if (left === 0) break;
          if (Date.now() > deadline)
            throw new Error(`peer queue still holds ${JSON.stringify(counts)} after ${timeoutMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const { rows } = await db.query<{ event_id: string; processed_at: Date | null }>(
          'SELECT event_id, processed_at FROM webhook_event WHERE provider = $1 AND event_id = ANY($2)',
          [provider, eventIds],
        );
        const times = new Map(
          rows.filter((row) => row.processed_at).map((row) => [row.event_id, row.processed_at!.getTime()]),
        );
        if (times.size < eventIds.length)
          throw new Error(`${eventIds.length - times.size} peer events without processed_at`);
        return times;
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
