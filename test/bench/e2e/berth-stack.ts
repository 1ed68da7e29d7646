/**
 * Berth exactly as `npm start` runs it: `startLocalMesh` of deploy/local (nats-server and the embedded store from
 * `@berth/local-infra`, or the MongoDB of `MONGO_URL`, then every service docker-compose.yml declares, each
 * supervised), in a data folder of its own on free loopback ports. The only changes to the environment are what a
 * benchmark on a shared machine needs: the shared Stripe stand-in, no trace exporter, JSON logs into files, and no
 * per-IP rate limit (all requests come from one address).
 */
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { inboxCollections, type Inbox, type InboxEventDocument } from '@berth/inbox';
import { splitServerCredentials } from '@berth/messaging';
import { startLocalMesh } from '../../../deploy/local/local-mesh';
import { permissionViolations } from '../../../deploy/local/nats-users';
import { localSecrets } from '../../../deploy/local/local-secrets';
import { subscriptionUpdatedEvent } from '../harness';
import type { Provider } from './events';
import { fillerPayload, type E2eStack } from './stack';

const DURABLE: Record<Provider, string> = { stripe: 'billing-sync', clerk: 'identity-sync' };
const FILL_BATCH = 1000;

/** Starts the Berth mesh; `mongoUrl` set: that MongoDB instead of the embedded store. */
export async function startBerthStack(options: {
  standInUrl: string;
  logDir: string;
  mongoUrl?: string;
}): Promise<E2eStack> {
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async (): Promise<void> => {
    const errors: unknown[] = [];
    for (const stop of stops.splice(0).reverse()) await stop().catch((error: unknown) => errors.push(error));
    if (errors.length > 0) throw errors[0];
  };
  try {
    const dataDir = join(options.logDir, 'berth-data');
    const meshLog = createWriteStream(join(options.logDir, 'berth-mesh.log'), { flags: 'a' });
    stops.push(async () => meshLog.end());
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      STRIPE_API_BASE: options.standInUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '0',
      LOG_FORMAT: 'json',
      MONGO_URL: options.mongoUrl,
      MONGO_DB: `berth_bench_e2e_${process.pid}_${Date.now().toString(36)}`,
    };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const started = await startLocalMesh({
      env,
      dataDir,
      freePorts: true,
      write: (line) => meshLog.write(`${line}\n`),
    });
    stops.push(async () => {
      await started.stop();
      // Every service ran as its own NATS user: the run fails if nats-server refused any of them anything.
      const violations = permissionViolations(await readFile(join(dataDir, 'nats.log'), 'utf8').catch(() => ''));
      if (violations.length > 0) throw new Error(`nats-server logged permission violations:\n${violations.join('\n')}`);
    });
    await waitReady(
      started.mesh.health.map((target) => `${target.url}/readyz`),
      120_000,
    );
    const { mesh } = started;
    const client = await MongoClient.connect(mesh.mongoUrl, { maxPoolSize: 16 });
    stops.push(async () => {
      if (options.mongoUrl) await client.db(mesh.mongoDb).dropDatabase();
      await client.close();
    });
    const inbox = inboxCollections(client.db(mesh.mongoDb));
    // As the operator, whose credentials the NATS URL in berth-local.json carries.
    const { servers, user, pass } = splitServerCredentials(mesh.natsUrl);
    const nc = await connect({ servers, user, pass });
    stops.push(() => nc.close());
    const jsm: JetStreamManager = await jetstreamManager(nc);
    const secrets = localSecrets(join(dataDir, 'local-secrets.json'));

    return {
      name: options.mongoUrl ? 'berth (MongoDB)' : 'berth',
      providers: ['stripe', 'clerk'],
      secrets: { stripe: secrets.STRIPE_WEBHOOK_SECRET, clerk: secrets.CLERK_WEBHOOK_SIGNING_SECRET },
      url: (provider) => `${mesh.gatewayUrl}/webhooks/${provider}`,
      async processes() {
        const services = Object.fromEntries(
          started.services
            .names()
            .map((name) => [name, started.services.pidOf(name) ?? 0] as const)
            .filter(([name]) => name !== 'stripe-stand-in'),
        );
        return {
          ...services,
          ...(started.nats ? { 'nats-server': started.nats.process.child.pid ?? 0 } : {}),
          ...(started.mongo
            ? {
                ferretdb: started.mongo.process.child.pid ?? 0,
                postgres: started.mongo.postgresProcess.child.pid ?? 0,
              }
            : {}),
        };
      },
      // Counted, not estimated: the embedded store's estimate is PostgreSQL's planner statistics, stale after a fill.
      rowCount: () => inbox.events.countDocuments(),
      fillTo: (rows) => fillInbox(inbox, rows),
      waitProcessed: (provider, eventIds, timeoutMs) =>
        waitProcessed({ inbox, jsm, durable: DURABLE[provider], provider, eventIds, timeoutMs }),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}

/** Resolves once every URL answers 200 (every service ready), or rejects past the deadline. */
async function waitReady(urls: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const url of urls) {
    for (;;) {
      const ok = await fetch(url).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Inserts processed Stripe rows, as a first attempt that succeeded leaves them, until the inbox holds `rows`:
 * `insertMany` of 1,000 at a time, two at once, straight into the store.
 */
async function fillInbox(inbox: Inbox, rows: number): Promise<void> {
  let next = await inbox.events.countDocuments();
  const base = next;
  const day = 86_400_000;
  const now = Date.now();
  const lane = async (): Promise<void> => {
    while (next < rows) {
      const from = next;
      const to = Math.min(rows, from + FILL_BATCH);
      next = to;
      const events: InboxEventDocument[] = [];
      for (let index = from; index < to; index++) {
        const eventId = `evt_fill_${base}_${index}`;
        const receivedAt = new Date(now - 30 * day + Math.floor((index * 30 * day) / Math.max(rows, 1)));
        const _id = `stripe:${eventId}`;
        events.push({
          _id,
          provider: 'stripe',
          eventId,
          type: 'customer.subscription.updated',
          receivedAt,
          payload: fillerPayload(subscriptionUpdatedEvent, index),
          subject: 'webhooks.stripe.customer.subscription.updated',
          attempts: 1,
          lastError: null,
          lastAttemptAt: receivedAt,
          processedAt: new Date(receivedAt.getTime() + 50),
          abandonedAt: null,
          leaseOwner: null,
          leaseUntil: null,
          processedBy: { attempt: 1, owner: 'bench-fill' },
          nextAttemptAt: null,
          roundEndedAt: null,
          requeuedAt: null,
          requeueCount: 0,
          setAsideCount: 0,
          alertedAt: null,
          reopenedAt: null,
        });
      }
      await inbox.events.insertMany(events, { ordered: false });
    }
  };
  await Promise.all([lane(), lane()]);
}

async function waitProcessed(options: {
  inbox: Inbox;
  jsm: JetStreamManager;
  durable: string;
  provider: Provider;
  eventIds: string[];
  timeoutMs: number;
}): Promise<Map<string, number>> {
  const deadline = Date.now() + options.timeoutMs;
  // JetStream says when the consumer has acked everything (it acks only after processedAt): no polling of the store.
  for (;;) {
    const info = await options.jsm.consumers.info('WEBHOOKS', options.durable);
    if (info.num_pending === 0 && info.num_ack_pending === 0) break;
    if (Date.now() > deadline)
      throw new Error(
        `${options.durable}: ${info.num_pending} pending, ${info.num_ack_pending} unacked after ${options.timeoutMs} ms`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const times = new Map<string, number>();
  let missing = options.eventIds;
  while (missing.length > 0) {
    const found = await readProcessedAt(options.inbox, options.provider, missing);
    for (const [id, at] of found) times.set(id, at);
    missing = missing.filter((id) => !times.has(id));
    if (missing.length === 0) break;
    if (Date.now() > deadline)
      throw new Error(`${missing.length} ${options.provider} events without processedAt after ${options.timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return times;
}

/** processedAt of each event, read by `_id`, 16 at a time. */
async function readProcessedAt(inbox: Inbox, provider: Provider, eventIds: string[]): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < eventIds.length) {
      const eventId = eventIds[next++];
      const row = await inbox.events.findOne({ _id: `${provider}:${eventId}` }, { projection: { processedAt: 1 } });
      if (row?.processedAt) times.set(eventId, row.processedAt.getTime());
    }
  };
  await Promise.all(Array.from({ length: 16 }, lane));
  return times;
}
