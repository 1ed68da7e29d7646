/**
 * The peer stack the benchmark compares Berth against: a typical Stripe webhook receiver built from
 * Fastify 5, the official `stripe` library, Redis SETNX for de-duplication and a BullMQ queue.
 *
 * Run as a child process: `node -r ./deploy/runtime/ts-hook.js test/bench/peer/peer-gateway.ts` with PEER_PORT,
 * REDIS_URL and STRIPE_WEBHOOK_SECRET set. Prints `peer listening on <port>` once it accepts requests.
 */
import Redis from 'ioredis';
import { Queue } from 'bullmq';
import { requiredEnv, stripeWebhookApp } from './stripe-webhook-app';

/** Name of the BullMQ queue the peer enqueues into. */
export const PEER_QUEUE = 'stripe-webhooks';
const DEDUP_TTL_S = 7 * 24 * 3600;

async function main(): Promise<void> {
  const port = Number(requiredEnv('PEER_PORT'));
  const redisUrl = requiredEnv('REDIS_URL');
  const secret = requiredEnv('STRIPE_WEBHOOK_SECRET');

  const redis = new Redis(redisUrl);
  const queue = new Queue(PEER_QUEUE, { connection: new Redis(redisUrl, { maxRetriesPerRequest: null }) });

  const app = stripeWebhookApp(secret, async (event) => {
    const key = `webhook:stripe:${event.id}`;
    const fresh = await redis.set(key, '1', 'EX', DEDUP_TTL_S, 'NX');
    if (fresh === null) return { received: true, duplicate: true };
    try {
      // BullMQ 6 rejects custom job ids with one ':' ("Custom Id cannot contain :"), hence '-' instead of 'stripe:'.
      await queue.add(
        event.type,
        { eventId: event.id, type: event.type, payload: event },
        { jobId: `stripe-${event.id}`, removeOnComplete: true },
      );
    } catch (error) {
      await redis.del(key); // let Stripe's retry get through instead of being taken for a duplicate
      throw error;
    }
    return { received: true };
  });

  const shutdown = async (): Promise<void> => {
    await app.close();
    await queue.close();
    redis.disconnect();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());

  await app.listen({ host: '127.0.0.1', port });
  process.stdout.write(`peer listening on ${port}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`peer failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
