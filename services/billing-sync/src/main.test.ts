import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import {
  defaultToolsBinDir,
  spawnManaged,
  startFerretDb,
  startNatsServer,
  type FerretDbHandle,
  type ManagedProcess,
  type NatsServerHandle,
} from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { inboxCollections, waitForInboxEvent } from '@berth/inbox';
import { publishTestWebhook } from '@berth/inbox/testing';
import { StripeStandIn } from '../../../test/support/stripe-stand-in';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
const repoRoot = join(__dirname, '..', '..', '..');
let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let standIn: StripeStandIn;
let mongo: MongoClient;
let db: Db;
let messaging: Messaging;
let service: ManagedProcess | undefined;

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNatsServer({ binDir }), startFerretDb({ binDir })]);
  standIn = new StripeStandIn();
  await standIn.start();
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`billing_sync_main_test_${process.pid}`);
  messaging = await connectMessaging({
    servers: nats.url,
    name: 'billing-sync-main-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
});

afterAll(async () => {
  await service?.stop(2000);
  await messaging?.close();
  await mongo?.close();
  await standIn?.stop();
  await Promise.all([ferret?.stop(), nats?.stop()]);
});

describe('billing-sync process', () => {
  it('starts from its environment, and on SIGTERM finishes the running handler before exiting 0', async () => {
    service = spawnManaged({
      command: process.execPath,
      args: ['-r', join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'), join(__dirname, 'main.ts')],
      cwd: repoRoot,
      env: {
        ...process.env,
        NATS_URL: nats.url,
        MONGO_URL: ferret.url,
        MONGO_DB: db.databaseName,
        STRIPE_SECRET_KEY: 'sk_test_standin',
        STRIPE_API_BASE: standIn.url,
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        HEALTH_PORT: '0',
      },
    });
    await service.waitForLine(/"msg":"Billing sync ready"/, 45000);

    await db.collection('workspaces').insertOne({ _id: 'org_slow' as never, billing: { customerId: 'cus_slow' } });
    standIn.setSubscriptions('cus_slow', [{ id: 'sub_slow' }]);
    standIn.setLatency(1500);
    await publishTestWebhook(messaging.js, {
      provider: 'stripe',
      eventId: 'evt_slow',
      type: 'invoice.paid',
      body: {
        id: 'evt_slow',
        type: 'invoice.paid',
        data: { object: { id: 'in_slow', object: 'invoice', customer: 'cus_slow' } },
      },
    });
    await standIn.waitForRequest('/v1/subscriptions', { customer: 'cus_slow' });

    service.child.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });
    await service.waitForLine(/"msg":"Billing sync stopped"/, 1000);
    const row = await waitForInboxEvent({ inbox: inboxCollections(db), key: 'stripe:evt_slow', timeoutMs: 1000 });
    expect(row).toMatchObject({ attempts: 1, lastError: null });
    expect(await db.collection('workspaces').findOne({ _id: 'org_slow' as never })).toMatchObject({
      billing: { customerId: 'cus_slow', status: 'active' },
    });
  });

  it('refuses to start without its Stripe key, naming the variable', async () => {
    const misconfigured = spawnManaged({
      command: process.execPath,
      args: ['-r', join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'), join(__dirname, 'main.ts')],
      cwd: repoRoot,
      env: { ...process.env, STRIPE_SECRET_KEY: '', NATS_URL: nats.url },
    });
    await misconfigured.waitForLine(/STRIPE_SECRET_KEY/, 45000);
    expect((await misconfigured.exited).code).toBe(1);
  });
});
