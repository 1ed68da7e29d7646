/**
 * The seeds' worker for webhook jobs (seed 000, step 5), the peer of billing-sync in `bench:e2e`: a BullMQ worker
 * that reads the inbox row by id, skips it if processed, counts the attempt, reads the customer from Stripe (the
 * same stand-in billing-sync reads) and sets `processed_at`. On failure it records `last_error` and throws, so BullMQ
 * retries.
 *
 * Env: DATABASE_URL, REDIS_URL, STRIPE_API_BASE, WORKER_CONCURRENCY (16, as BILLING_SYNC_CONCURRENCY). Prints
 * `peer worker ready`.
 */
import { Worker } from 'bullmq';
import Redis from 'ioredis';
import { Pool } from 'pg';
import Stripe from 'stripe';
import { PEER_E2E_QUEUE } from './peer-inbox-schema';

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const base = new URL(requiredEnv('STRIPE_API_BASE'));
  const stripe = new Stripe('sk_test_peer', {
    host: base.hostname,
    port: Number(base.port),
    protocol: base.protocol === 'https:' ? 'https' : 'http',
    maxNetworkRetries: 0,
  });
  const concurrency = Number(process.env.WORKER_CONCURRENCY ?? 16);
  const pool = new Pool({ connectionString: requiredEnv('DATABASE_URL'), max: concurrency, idleTimeoutMillis: 0 });
  const worker = new Worker<{ id: string }>(
    PEER_E2E_QUEUE,
    async (job) => {
      const { rows } = await pool.query<{
        payload: { data: { object: { customer?: string } } };
        processed_at: Date | null;
      }>('SELECT payload, processed_at FROM webhook_event WHERE id = $1', [job.data.id]);
      const row = rows[0];
      if (!row || row.processed_at) return;
      await pool.query('UPDATE webhook_event SET attempts = attempts + 1 WHERE id = $1', [job.data.id]);
      try {
        const customer = row.payload.data.object.customer;
        if (customer) await stripe.customers.retrieve(customer);
        await pool.query('UPDATE webhook_event SET processed_at = $2 WHERE id = $1', [job.data.id, new Date()]);
      } catch (error) {
        await pool.query('UPDATE webhook_event SET last_error = $2 WHERE id = $1', [job.data.id, String(error)]);
        throw error;
      }
    },
    { connection: new Redis(requiredEnv('REDIS_URL'), { maxRetriesPerRequest: null }), concurrency },
  );
  await worker.waitUntilReady();
  const shutdown = async (): Promise<void> => {
    await worker.close();
    await pool.end();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  process.stdout.write('peer worker ready\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`peer worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
