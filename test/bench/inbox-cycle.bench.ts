import { systemClock } from '@berth/contract';
/**
 * `npm run bench:inbox`: the inbox hot path alone against the embedded store, no services: `processInboxEvent` with
 * a handler that does nothing, for BENCH_INBOX_EVENTS (400) new Stripe events of realistic size, BENCH_INBOX_CONCURRENCY
 * (16, as BILLING_SYNC_CONCURRENCY) at once, into an inbox already holding BENCH_INBOX_ROWS (0) processed rows, on a
 * FerretDB of its own (BENCH_INBOX_ID_INDEX=0 starts it without the `_id` lookup index of `@berth/local-infra`).
 * Prints events/s and FerretDB's CPU ms per event (from /proc): what one inbox cycle costs the store.
 */
import { MongoClient } from 'mongodb';
import { defaultToolsBinDir, startFerretDb } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { ensureInboxIndexes, inboxCollections, processInboxEvent } from '@berth/inbox';
import { fakeWebhookMessage } from '@berth/inbox/testing';
import { subscriptionUpdatedEvent, treeCpuSeconds } from './harness';

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

async function main(): Promise<void> {
  const events = envInt('BENCH_INBOX_EVENTS', 400);
  const rows = envInt('BENCH_INBOX_ROWS', 0);
  const concurrency = envInt('BENCH_INBOX_CONCURRENCY', 16);
  const logger = createLogger({ service: 'bench-inbox', level: 'silent' });
  const ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  const client = await MongoClient.connect(ferret.url, { maxPoolSize: 32 });
  try {
    const inbox = inboxCollections(client.db('bench_inbox'));
    await ensureInboxIndexes({ inbox });
    const payload = JSON.stringify(subscriptionUpdatedEvent('evt_fill', 1_700_000_000));
    for (let from = 0; from < rows; from += 1000) {
      const ids = Array.from({ length: Math.min(1000, rows - from) }, (_, index) => `stripe:evt_fill_${from + index}`);
      await inbox.events.insertMany(
        ids.map((_id) => ({
          _id,
          provider: 'stripe',
          eventId: _id.slice(7),
          type: 'customer.subscription.updated',
          receivedAt: new Date(),
          payload,
          attempts: 1,
          lastError: null,
          lastAttemptAt: null,
          processedAt: new Date(),
          abandonedAt: null,
          leaseOwner: null,
          leaseUntil: null,
          processedBy: { attempt: 1, owner: 'fill' },
        })),
      );
    }
    const messages = Array.from({ length: events }, (_, index) =>
      fakeWebhookMessage({
        provider: 'stripe',
        eventId: `evt_bench_${index}`,
        type: 'customer.subscription.updated',
        body: payload,
      }),
    );
    const pids = [ferret.process.child.pid ?? 0, ferret.postgresProcess.child.pid ?? 0];
    const storeCpu = (): number => pids.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);
    const cpuBefore = storeCpu();
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < messages.length) {
          const message = messages[next++];
          await processInboxEvent({
            inbox,
            message,
            handler: async () => undefined,
            owner: 'bench',
            leaseMs: 60_000,
            clock: systemClock,
            logger,
          });
        }
      }),
    );
    const elapsedMs = Date.now() - started;
    console.log(
      `inbox cycle: ${rows} rows, ${events} events, ${concurrency} at once: ${Math.round((events * 1000) / elapsedMs)} events/s, store CPU ${(((storeCpu() - cpuBefore) * 1000) / events).toFixed(2)} ms per event`,
    );
  } finally {
    await client.close();
    await ferret.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
