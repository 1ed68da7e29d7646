/**
 * The services themselves, each as its own process connected as its own NATS user (deploy/nats/auth.conf, as
 * compose and Kubernetes run them), against a real nats-server with no anonymous access: the consumers start first
 * (they create WEBHOOKS when it is missing), then the gateway, the scheduler, the app worker and the dispatcher.
 * A signed Stripe and a signed Clerk event are applied end to end, the scheduler takes the lease, the worker
 * registers its crons, an outbound event reaches its endpoint, and no service logged a permissions violation.
 */
import { waitFor } from '@berth/local-infra/testing';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { startFerretDb, startNatsServer, type FerretDbHandle, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { inboxCollections, waitForInboxEvent } from '@berth/inbox';
import { openCronBuckets, readCronSchedules, readLease } from '@berth/cron';
import { createOutboundSender } from '@berth/outbound';
import { toolsBinDir } from '../support/mesh';
import { authConfOptions, randomNatsPasswords, type NatsUser } from './support/nats-users';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { StripeStandIn } from '../support/stripe-stand-in';
import { newStripeSecret, newSvixSecret, WebhookSender } from '../support/webhook-senders';
import { WebhookReceiver } from '../support/webhook-receiver';
import { runCliCaptured } from '../../services/cli/src/testing';

const passwords = randomNatsPasswords('hex');
const TOKEN = `nats-users-${randomBytes(24).toString('hex')}`;
const logger = createLogger({ service: 'nats-users-test', level: 'silent' });

let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let standIn: StripeStandIn;
let receiver: WebhookReceiver;
let mongo: MongoClient;
let db: Db;
let logDir: string;
let operator: Messaging;
let worker: Messaging;
let gatewayUrl: string;
const services: Partial<Record<NatsUser, ServiceProcess>> = {};
const secrets = { stripe: newStripeSecret(), clerk: newSvixSecret() };

const natsUrl = (user: NatsUser): string => `nats://${user}:${passwords[user]}@127.0.0.1:${nats.port}`;

function start(
  user: Exclude<NatsUser, 'operator'>,
  env: Record<string, string>,
  readyLine: RegExp,
): Promise<ServiceProcess> {
  return startServiceProcess({
    service: user,
    env: {
      NATS_URL: natsUrl(user),
      MONGO_URL: ferret.url,
      MONGO_DB: db.databaseName,
      LOG_LEVEL: 'info',
      HEALTH_PORT: '0',
      HEALTH_HOST: '127.0.0.1',
      ...env,
    },
    readyLine,
    logFile: join(logDir, `${user}.log`),
    timeoutMs: 120_000,
  }).then((service) => (services[user] = service));
}

beforeAll(async () => {
  logDir = await mkdtemp(join(tmpdir(), 'berth-nats-users-'));
  standIn = new StripeStandIn();
  [nats, ferret] = await Promise.all([
    startNatsServer({
      binDir: toolsBinDir,
      ...authConfOptions(passwords),
      logFile: join(logDir, 'nats-server.log'),
    }),
    startFerretDb({ binDir: toolsBinDir }),
    standIn.start(),
  ]);
  receiver = await new WebhookReceiver().start();
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`nats_users_${randomBytes(4).toString('hex')}`);
  await Promise.all([
    start(
      'billing-sync',
      { STRIPE_SECRET_KEY: 'sk_test_nats_users', STRIPE_API_BASE: standIn.url },
      /"msg":"Billing sync ready"/,
    ),
    start('identity-sync', {}, /"msg":"Identity sync ready"/),
  ]);
  const gateway = await start(
    'gateway',
    {
      HOST: '127.0.0.1',
      PORT: '0',
      STRIPE_WEBHOOK_SECRET: secrets.stripe,
      CLERK_WEBHOOK_SIGNING_SECRET: secrets.clerk,
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '0',
    },
    /Gateway listening on :(\d+)/,
  );
  gatewayUrl = `http://127.0.0.1:${(await gateway.process.waitForLine(/Gateway listening on :(\d+)/, 1000))[1]}`;
  await Promise.all([
    start('scheduler', { SCHEDULER_LEASE_TTL_MS: '3000' }, /"msg":"Scheduler ready"/),
    start('app-worker', {}, /"msg":"Queue worker ready"/),
    start(
      'dispatcher',
      {
        HOST: '127.0.0.1',
        PORT: '0',
        DISPATCHER_API_TOKEN: TOKEN,
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
        OUTBOUND_ALLOWED_PORTS: '1-65535',
      },
      /"msg":"Dispatcher ready"/,
    ),
  ]);
  operator = await connectMessaging({ servers: natsUrl('operator'), name: 'nats-users-operator', logger });
  worker = await connectMessaging({ servers: natsUrl('app-worker'), name: 'nats-users-product-code', logger });
}, 420_000);

afterAll(async () => {
  await Promise.all(Object.values(services).map((service) => service?.stop().catch(() => undefined)));
  await worker?.close();
  await operator?.close();
  await mongo?.close();
  await receiver?.stop();
  await Promise.all([ferret?.stop(), nats?.stop(), standIn?.stop()]);
  if (logDir && !process.env.BERTH_KEEP_MESH_LOGS) await rm(logDir, { recursive: true, force: true });
}, 60_000);

describe('every service as its own NATS user', () => {
  it('applies a signed Stripe event (and the member-limit job it queues) and a signed Clerk event end to end', async () => {
    const sender = new WebhookSender(gatewayUrl, secrets);
    await db.collection<{ _id: string; name: string }>('workspaces').insertOne({ _id: 'org_nats', name: 'NATS Ltd' });
    standIn.setCustomer({ id: 'cus_nats', metadata: { workspaceId: 'org_nats' } });
    standIn.setSubscriptions('cus_nats', [{ id: 'sub_nats', items: [{ priceId: 'price_team', quantity: 1 }] }]);
    const stripeId = `evt_${randomBytes(8).toString('hex')}`;
    const stripe = await sender.sendStripe({
      id: stripeId,
      object: 'event',
      type: 'customer.subscription.updated',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'sub_nats', object: 'subscription', customer: 'cus_nats' } },
    });
    expect(stripe.status).toBe(200);
    const clerkId = `msg_${randomBytes(8).toString('hex')}`;
    const clerk = await sender.sendClerk(clerkId, {
      type: 'user.created',
      data: { id: 'user_1', updated_at: Date.now(), email_addresses: [] },
    });
    expect(clerk.status).toBe(200);
    const inbox = inboxCollections(db);
    await waitForInboxEvent({ inbox, key: `stripe:${stripeId}`, timeoutMs: 30_000 });
    await waitForInboxEvent({ inbox, key: `clerk:${clerkId}`, timeoutMs: 30_000 });
    await services['app-worker']!.process.waitForLine(/"msg":"Member limit/, 30_000);
  }, 90_000);

  it('lets the scheduler hold the lease and the worker and the scheduler register their crons', async () => {
    const buckets = await openCronBuckets(operator.js);
    const lease = await waitFor(() => readLease(buckets.lease), {
      what: 'a scheduler leading',
      timeoutMs: 20_000,
      intervalMs: 100,
      until: (value) => value !== null,
    });
    expect(lease?.holder).toBeTruthy();
    const owners = new Set(
      [...(await readCronSchedules(buckets.schedules)).values()].map(({ schedule }) => schedule.owner),
    );
    expect([...owners].sort()).toEqual(expect.arrayContaining(['app-worker', 'scheduler']));
  }, 30_000);

  it('delivers an outbound event sent by product code to an endpoint created through the management API', async () => {
    const dispatcherPort = Number((await services.dispatcher!.process.waitForLine(/"port":(\d+)/, 1000))[1]);
    const created = await fetch(`http://127.0.0.1:${dispatcherPort}/v1/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      // Rate-limited, so the delivery takes its start from the shared window (the berth_outbound_rates bucket).
      body: JSON.stringify({ workspaceId: 'ws_nats', url: receiver.url, rateLimitPerSecond: 5 }),
    });
    expect(created.status).toBe(201);
    const send = createOutboundSender({ js: worker.js });
    await send('ws_nats', 'invoice.paid', { invoiceId: 'in_1' }, { idempotencyKey: randomBytes(6).toString('hex') });
    await receiver.waitForAccepted(1, 30_000);
  }, 45_000);

  it('lets the operator run the berth CLI: queues, crons, inbox events, endpoints', async () => {
    for (const argv of [
      ['jobs', 'queues'],
      ['crons', 'list'],
      ['webhooks', 'list'],
      ['endpoints', 'list', '--workspace', 'ws_nats'],
      ['jobs', 'dead', 'list'],
    ]) {
      const { code, err } = await runCliCaptured(argv, {
        natsUrl: natsUrl('operator'),
        mongoUrl: ferret.url,
        mongoDb: db.databaseName,
      });
      expect({ argv, code, err }).toEqual({ argv, code: 0, err: '' });
    }
  }, 60_000);

  it('logged no permissions violation in any service, and every service still runs', async () => {
    for (const [user, service] of Object.entries(services))
      expect({ user, exitCode: service!.process.child.exitCode }).toEqual({ user, exitCode: null });
    const violations: string[] = [];
    for (const file of await readdir(logDir)) {
      for (const line of (await readFile(join(logDir, file), 'utf8')).split('\n'))
        if (/permissions violation|authorization violation/i.test(line))
          violations.push(`${file}: ${line.slice(0, 300)}`);
    }
    expect(violations).toEqual([]);
  });
});
