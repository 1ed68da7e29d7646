/**
 * Berth as `npm start` runs it (deploy/local/start.ts): nats-server and FerretDB from `@berth/local-infra` (or the
 * MongoDB of `MONGO_URL`), then the gateway, billing-sync and identity-sync with the command and environment
 * docker-compose.yml gives them, nats-server with Berth's NATS users (deploy/nats/auth.conf, the passwords of the local
 * secrets) and each service as its own user. The only changes to that environment are what a benchmark on a shared machine
 * needs: free ports, loopback, a database of its own, the Stripe stand-in, no trace exporter, and no per-IP rate
 * limit (all requests come from one address).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import {
  defaultToolsBinDir,
  getFreePort,
  startFerretDb,
  startNatsServer,
  type FerretDbHandle,
  type ManagedProcess,
} from '@berth/local-infra';
import { inboxCollections, type Inbox, type InboxEventDocument, type LeaseDocument } from '@berth/inbox';
import { readNativeServices } from '../../../deploy/local/compose-services';
import { localSecrets } from '../../../deploy/local/local-secrets';
import {
  authConfOptions,
  natsPasswordsFrom,
  natsUrlAs,
  natsUserOf,
  permissionViolations,
} from '../../../deploy/local/nats-users';
import { subscriptionUpdatedEvent } from '../harness';
import { trackChild } from '../lifecycle';
import type { Provider } from './events';
import { repoRoot, startNodeProcess } from './processes';
import { fillerPayload, type E2eStack } from './stack';

type ServiceName = 'gateway' | 'billing-sync' | 'identity-sync';
const READY: Record<ServiceName, RegExp> = {
  gateway: /Gateway listening on/,
  'billing-sync': /Billing sync ready/,
  'identity-sync': /Identity sync ready/,
};
const DURABLE: Record<Provider, string> = { stripe: 'billing-sync', clerk: 'identity-sync' };
const FILL_BATCH = 1000;

/** Starts the Berth mesh; `mongoUrl` set: that MongoDB instead of a FerretDB of its own. */
export async function startBerthStack(options: {
  standInUrl: string;
  logDir: string;
  mongoUrl?: string;
}): Promise<E2eStack> {
  const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    // As `npm start` does: compose's secrets from a local secrets file (here in the log folder), Clerk on.
    const secrets = localSecrets(join(options.logDir, 'local-secrets.json'));
    const passwords = natsPasswordsFrom(secrets);
    const natsLog = join(options.logDir, 'nats-server.log');
    const nats = await startNatsServer({ binDir, logFile: natsLog, ...authConfOptions(passwords) });
    trackChild(nats.process.child);
    stops.push(() => nats.stop());
    let ferret: FerretDbHandle | undefined;
    if (!options.mongoUrl) {
      ferret = await startFerretDb({ binDir, logFile: join(options.logDir, 'ferretdb.log') });
      trackChild(ferret.process.child);
      stops.push(() => ferret!.stop());
    }
    const mongoUrl = options.mongoUrl ?? ferret!.url;
    const dbName = `berth_bench_e2e_${process.pid}_${Date.now().toString(36)}`;
    const client = await MongoClient.connect(mongoUrl, { maxPoolSize: 16 });
    stops.push(async () => {
      if (options.mongoUrl) await client.db(dbName).dropDatabase();
      await client.close();
    });
    const inbox = inboxCollections(client.db(dbName));
    const nc = await connect({ servers: nats.url, user: 'operator', pass: passwords.operator });
    stops.push(() => nc.close());
    const jsm: JetStreamManager = await jetstreamManager(nc);

    const compose = readNativeServices(
      join(repoRoot, 'docker-compose.yml'),
      { CLERK_WEBHOOK_SIGNING_SECRET: secrets.CLERK_WEBHOOK_SIGNING_SECRET, ...process.env },
      secrets,
    );
    const procs: Record<string, ManagedProcess> = {};
    const gatewayPort = await getFreePort('127.0.0.1');
    const envFor = async (name: string, environment: Record<string, string>): Promise<NodeJS.ProcessEnv> => ({
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== '')),
      NATS_URL: natsUrlAs(nats.url, natsUserOf(name)!, passwords[natsUserOf(name)!]),
      MONGO_URL: mongoUrl,
      MONGO_DB: dbName,
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      STRIPE_API_BASE: options.standInUrl,
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '0',
      HOST: '127.0.0.1',
      HEALTH_HOST: '127.0.0.1',
      ...(name === 'gateway' ? { PORT: String(gatewayPort) } : { HEALTH_PORT: String(await getFreePort('127.0.0.1')) }),
    });
    const start = async (name: ServiceName): Promise<void> => {
      const service = compose.find((candidate) => candidate.name === name);
      if (!service) throw new Error(`docker-compose.yml declares no native service ${name}`);
      const entry = service.command.find((part) => part.endsWith('.ts'));
      if (!entry) throw new Error(`${name}: no TypeScript entry point in its compose command`);
      const { proc } = await startNodeProcess({
        name,
        entry: join(repoRoot, entry),
        env: await envFor(name, service.environment),
        ready: READY[name],
        logDir: options.logDir,
      });
      procs[name] = proc;
      stops.push(() => proc.stop(10_000));
    };
    // All at once, as `npm start` does: the gateway is ready only once a consumer reads each provider it accepts.
    await Promise.all([start('gateway'), start('billing-sync'), start('identity-sync')]);
    const gatewayEnv = compose.find((service) => service.name === 'gateway')!.environment;
    const webhookSecrets = { stripe: gatewayEnv.STRIPE_WEBHOOK_SECRET, clerk: gatewayEnv.CLERK_WEBHOOK_SIGNING_SECRET };

    return {
      name: options.mongoUrl ? 'berth (MongoDB)' : 'berth',
      providers: ['stripe', 'clerk'],
      secrets: webhookSecrets,
      url: (provider) => `http://127.0.0.1:${gatewayPort}/webhooks/${provider}`,
      async processes() {
        return {
          ...Object.fromEntries(Object.entries(procs).map(([name, proc]) => [name, proc.child.pid ?? 0])),
          'nats-server': nats.process.child.pid ?? 0,
          ...(ferret ? { ferretdb: ferret.process.child.pid ?? 0 } : {}),
        };
      },
      rowCount: () => inbox.events.estimatedDocumentCount(),
      fillTo: (rows) => fillInbox(inbox, rows),
      waitProcessed: (provider, eventIds, timeoutMs) =>
        waitProcessed({ inbox, jsm, durable: DURABLE[provider], provider, eventIds, timeoutMs }),
      async stop() {
        // Each service ran as its own NATS user: a refused publish or subscription fails the benchmark.
        const violations = permissionViolations(await readFile(natsLog, 'utf8').catch(() => ''));
        await stopAll();
        if (violations.length > 0)
          throw new Error(`nats-server logged permission violations:\n${violations.join('\n')}`);
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Inserts processed Stripe rows, as a first attempt that succeeded leaves them (a row and its first lease document,
 * `<key>#1`), until the inbox holds `rows`: `insertMany` of 1,000 at a time, two at once, straight into the store.
 */
async function fillInbox(inbox: Inbox, rows: number): Promise<void> {
  let next = await inbox.events.estimatedDocumentCount();
  const base = next;
  const day = 86_400_000;
  const now = Date.now();
  const lane = async (): Promise<void> => {
    while (next < rows) {
      const from = next;
      const to = Math.min(rows, from + FILL_BATCH);
      next = to;
      const events: InboxEventDocument[] = [];
      const leases: LeaseDocument[] = [];
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
          leaseGeneration: 1,
          firstAttempt: { owner: 'bench-fill', at: receivedAt },
          nextAttemptAt: null,
          roundEndedAt: null,
          requeuedAt: null,
          requeueCount: 0,
          setAsideCount: 0,
          alertedAt: null,
          reopenedAt: null,
        });
        const until = new Date(receivedAt.getTime() + 30_000);
        leases.push({
          _id: `${_id}#1`,
          key: _id,
          generation: 1,
          owner: 'bench-fill',
          acquiredAt: receivedAt,
          until,
          releasedAt: null,
        });
      }
      await inbox.events.insertMany(events, { ordered: false });
      await inbox.leases.insertMany(leases, { ordered: false });
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

/** processedAt of each event, read by `_id` (the lookup FerretDB serves from an index), 16 at a time. */
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
