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

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
let messaging: Messaging;
let service: ManagedProcess | undefined;

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNatsServer({ binDir }), startFerretDb({ binDir })]);
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`identity_sync_main_test_${process.pid}`);
  messaging = await connectMessaging({
    servers: nats.url,
    name: 'identity-sync-main-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
});

afterAll(async () => {
  await service?.stop(2000);
  await messaging?.close();
  await mongo?.close();
  await Promise.all([ferret?.stop(), nats?.stop()]);
});

describe('identity-sync process', () => {
  it('creates the WEBHOOKS stream if needed, applies Clerk events, and exits 0 on SIGTERM', async () => {
    service = spawnManaged({
      command: process.execPath,
      args: ['-r', join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'), join(__dirname, 'main.ts')],
      cwd: join(__dirname, '..', '..', '..'),
      env: {
        ...process.env,
        NATS_URL: nats.url,
        MONGO_URL: ferret.url,
        MONGO_DB: db.databaseName,
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        HEALTH_PORT: '0',
      },
    });
    await service.waitForLine(/"msg":"Identity sync ready"/, 45000);
    expect((await messaging.jsm.consumers.info('WEBHOOKS', 'identity-sync')).config.filter_subject).toBe(
      'webhooks.clerk.>',
    );

    const body = {
      type: 'user.created',
      timestamp: 1_893_456_000_000,
      data: { id: 'user_main', first_name: 'Main', updated_at: 1_893_456_000_000 },
    };
    await publishTestWebhook(messaging.js, { provider: 'clerk', eventId: 'msg_main', type: 'user.created', body });
    await waitForInboxEvent({ inbox: inboxCollections(db), key: 'clerk:msg_main', timeoutMs: 10000 });
    expect(await db.collection('users').findOne({ _id: 'user_main' as never })).toMatchObject({ firstName: 'Main' });

    service.child.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });
    await service.waitForLine(/"msg":"Identity sync stopped"/, 1000);
  });
});
