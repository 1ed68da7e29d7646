/**
 * The seeds' webhook receiver (seed 000, "The webhook inbox"), the peer of Berth's gateway in `bench:e2e`: Fastify
 * verifies the Stripe signature over the raw body with the `stripe` library, writes the inbox row in PostgreSQL
 * (unique provider + event id; a second delivery adds no row), queues a BullMQ job with the row id (the job id is
 * the row id, so an event waiting or running is not queued twice) and answers 200 `{ received: true }`.
 *
 * Env: PEER_PORT, DATABASE_URL, REDIS_URL, STRIPE_WEBHOOK_SECRET. Prints `peer gateway listening on <port>`.
 */
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { requiredEnv, stripeWebhookApp } from '../peer/stripe-webhook-app';
import { PEER_E2E_QUEUE } from './peer-inbox-schema';

async function main(): Promise<void> {
  const secret = requiredEnv('STRIPE_WEBHOOK_SECRET');
  const pool = new Pool({ connectionString: requiredEnv('DATABASE_URL'), max: 10, idleTimeoutMillis: 0 });
  const queue = new Queue(PEER_E2E_QUEUE, {
    connection: new Redis(requiredEnv('REDIS_URL'), { maxRetriesPerRequest: null }),
  });

  const app = stripeWebhookApp(secret, async (event, body) => {
    const inserted = await pool.query<{ id: string }>(
      'INSERT INTO webhook_event (provider, event_id, type, payload) VALUES ($1, $2, $3, $4) ON CONFLICT (provider, event_id) DO NOTHING RETURNING id',
      ['stripe', event.id, event.type, body.toString('utf8')],
    );
    let id = inserted.rows[0]?.id;
    if (!id) {
      const existing = await pool.query<{ id: string; processed_at: Date | null }>(
        'SELECT id, processed_at FROM webhook_event WHERE provider = $1 AND event_id = $2',
        ['stripe', event.id],
      );
      if (existing.rows[0]?.processed_at) return { received: true };
      id = existing.rows[0]?.id;
    }
    await queue.add(
      'stripe-webhook',
      { id },
      {
        jobId: id,
        attempts: 11,
        backoff: { type: 'exponential', delay: 5000 },
        removeOnComplete: true,
        removeOnFail: 1000,
      },
    );
    return { received: true };
  });

  const shutdown = async (): Promise<void> => {
    await app.close();
    await queue.close();
    await pool.end();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  const port = Number(requiredEnv('PEER_PORT'));
  await app.listen({ host: '127.0.0.1', port });
  process.stdout.write(`peer gateway listening on ${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`peer gateway failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
