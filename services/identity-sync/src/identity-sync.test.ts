import { systemClock } from '@berth/contract';
import { MongoClient, type Db } from 'mongodb';
import type { WebhookWorkerApp } from '@berth/webhook-handlers';
import {
  defaultToolsBinDir,
  startFerretDb,
  startNatsServer,
  type FerretDbHandle,
  type NatsServerHandle,
} from '@berth/local-infra';
import { createLogger, LogContextStore } from '@berth/logger';
import { connectMessaging, ensureStream, exponentialBackoff, webhooksStream, type Messaging } from '@berth/messaging';
import { inboxCollections, type Inbox } from '@berth/inbox';
import {
  captureLogLines,
  OutcomeLog,
  publishTestWebhook,
  publishTestWebhookBatch,
  type TestWebhook,
} from '@berth/inbox/testing';
import { createIdentitySyncApp, identityCollections, loadConfig, type IdentityCollections } from './index';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
const T = Date.parse('2030-01-01T00:00:00Z');

let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
let inbox: Inbox;
let collections: IdentityCollections;
let messaging: Messaging;
let app: WebhookWorkerApp;
const outcomes = new OutcomeLog();
const logs = captureLogLines();
let counter = 0;

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNatsServer({ binDir }), startFerretDb({ binDir })]);
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`identity_sync_test_${process.pid}`);
  inbox = inboxCollections(db);
  collections = identityCollections(db);
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'identity-sync',
    level: 'info',
    context: logContext,
    destination: logs.destination,
  });
  messaging = await connectMessaging({ servers: nats.url, name: 'identity-sync-test', logger });
  await ensureStream(messaging.jsm, webhooksStream());
  const config = loadConfig({
    NATS_URL: nats.url,
    MONGO_URL: ferret.url,
    MONGO_DB: db.databaseName,
    INBOX_LEASE_MS: '2000',
    SHUTDOWN_GRACE_MS: '5000',
  });
  expect(config.concurrency).toBe(16);
  app = await createIdentitySyncApp({
    config,
    messaging,
    db,
    logger,
    logContext,
    clock: systemClock,
    retryPolicy: exponentialBackoff({ maxAttempts: 4, baseDelayMs: 100 }),
    onOutcome: outcomes.record,
  });
  await app.listen();
});

afterAll(async () => {
  await app?.close();
  await messaging?.close();
  await mongo?.close();
  await Promise.all([ferret?.stop(), nats?.stop()]);
});

/** A Clerk webhook (Svix message id as the event id) with `data`. */
function clerkEvent(type: string, data: Record<string, unknown>, timestamp?: number): TestWebhook {
  counter += 1;
  const eventId = `msg_${counter}_${type}`;
  return {
    provider: 'clerk',
    eventId,
    type,
    body: { object: 'event', type, timestamp: timestamp ?? T, instance_id: 'ins_1', data },
  };
}

function user(id: string, updatedAt: number, firstName: string): Record<string, unknown> {
  return {
    id,
    object: 'user',
    first_name: firstName,
    last_name: 'Lovelace',
    username: null,
    image_url: 'https://img.example/u.png',
    primary_email_address_id: 'idn_2',
    email_addresses: [
      { id: 'idn_1', email_address: 'old@example.com' },
      { id: 'idn_2', email_address: 'ada@example.com' },
    ],
    created_at: T - 1000,
    updated_at: updatedAt,
  };
}

/** Publishes and waits until the message was acked (processed, or skipped as processed). */
async function deliver(event: TestWebhook): Promise<void> {
  await publishTestWebhook(messaging.js, event);
  await outcomes.waitFor(event.eventId, 'acked');
}

describe('identity-sync', () => {
  it("applies every event of a batch message (the gateway's group commit), each once, with its own log context", async () => {
    const events = ['Grace', 'Alan', 'Edsger'].map((name) =>
      clerkEvent('user.created', user(`user_batch_${name}`, T + 1, name)),
    );
    const msgId = `clerk:batch:${counter}`;
    await publishTestWebhookBatch(messaging.js, {
      provider: 'clerk',
      type: 'user.created',
      msgId,
      webhooks: events.map(({ eventId, body }) => ({ eventId, body })),
    });
    await outcomes.waitFor(msgId, 'acked');
    const users = await collections.users
      .find({ _id: { $in: ['user_batch_Grace', 'user_batch_Alan', 'user_batch_Edsger'] } })
      .toArray();
    expect(users.map((found) => found.firstName).sort()).toEqual(['Alan', 'Edsger', 'Grace']);
    const rows = await inbox.events.find({ _id: { $in: events.map((event) => `clerk:${event.eventId}`) } }).toArray();
    expect(rows.map((row) => row.processedAt !== null && row.attempts === 1)).toEqual([true, true, true]);
    const processedLines = logs.lines.filter(
      (line) => line.msg === 'Webhook event processed' && events.some((event) => event.eventId === line.eventId),
    );
    expect(processedLines).toHaveLength(3);
  });

  it('keeps one inbox row and applies the change once when the same event arrives 10 times', async () => {
    const event = clerkEvent('user.created', user('user_dup', T + 1, 'Ada'));
    const sameId = Array.from({ length: 5 }, () => publishTestWebhook(messaging.js, event));
    const distinctIds = Array.from({ length: 5 }, (_, index) =>
      publishTestWebhook(messaging.js, { ...event, msgId: `clerk:${event.eventId}:copy-${index}` }),
    );
    const acks = await Promise.all([...sameId, ...distinctIds]);
    expect(acks.filter((ack) => ack.duplicate)).toHaveLength(4);
    await outcomes.waitFor(event.eventId, 'acked', 6);

    expect(await inbox.events.countDocuments({ provider: 'clerk', eventId: event.eventId })).toBe(1);
    expect(await inbox.events.findOne({ _id: `clerk:${event.eventId}` })).toMatchObject({
      attempts: 1,
      lastError: null,
      type: 'user.created',
    });
    expect(await collections.users.countDocuments({ _id: 'user_dup' })).toBe(1);
    expect(await collections.users.findOne({ _id: 'user_dup' })).toMatchObject({
      clerkUserId: 'user_dup',
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      clerkUpdatedAt: new Date(T + 1),
      deletedAt: null,
    });
    expect(
      logs.lines.filter((line) => line.eventId === event.eventId && line.msg === 'Clerk user change applied'),
    ).toHaveLength(1);
  });

  it('ignores an older change that arrives after a newer one', async () => {
    await deliver(clerkEvent('user.updated', user('user_order', T + 2000, 'Newest')));
    const older = clerkEvent('user.updated', user('user_order', T + 1000, 'Older'));
    await deliver(older);
    expect(await collections.users.findOne({ _id: 'user_order' })).toMatchObject({
      firstName: 'Newest',
      clerkUpdatedAt: new Date(T + 2000),
    });
    expect(
      logs.lines.find((line) => line.eventId === older.eventId && /nothing changed/.test(String(line.msg))),
    ).toMatchObject({ result: 'stale' });
    expect((await inbox.events.findOne({ _id: `clerk:${older.eventId}` }))!.processedAt).toBeInstanceOf(Date);

    await deliver(clerkEvent('user.updated', user('user_order', T + 3000, 'Newer still')));
    expect(await collections.users.findOne({ _id: 'user_order' })).toMatchObject({
      firstName: 'Newer still',
      clerkUpdatedAt: new Date(T + 3000),
    });
  });

  it('keeps a deleted user deleted when an update arrives late, however recent its updated_at', async () => {
    await deliver(clerkEvent('user.created', user('user_gone', T + 1000, 'Grace')));
    await deliver(clerkEvent('user.deleted', { id: 'user_gone', object: 'user', deleted: true }, T + 5000));
    await deliver(clerkEvent('user.updated', user('user_gone', T + 4000, 'Late')));
    await deliver(clerkEvent('user.updated', user('user_gone', T + 9000, 'Later than the deletion')));
    expect(await collections.users.findOne({ _id: 'user_gone' })).toMatchObject({
      firstName: 'Grace',
      deletedAt: new Date(T + 5000),
      clerkUpdatedAt: new Date(T + 5000),
    });
    const again = clerkEvent('user.deleted', { id: 'user_gone', deleted: true }, T + 7000);
    await deliver(again);
    expect((await collections.users.findOne({ _id: 'user_gone' }))!.deletedAt).toEqual(new Date(T + 5000));
  });

  it('leaves a tombstone when the deletion arrives before the creation', async () => {
    await deliver(clerkEvent('user.deleted', { id: 'user_early', deleted: true }, T + 5000));
    await deliver(clerkEvent('user.created', user('user_early', T + 1000, 'Too late')));
    expect(await collections.users.findOne({ _id: 'user_early' })).toEqual(
      expect.objectContaining({ clerkUserId: 'user_early', deletedAt: new Date(T + 5000) }),
    );
    expect((await collections.users.findOne({ _id: 'user_early' }))!.firstName).toBeUndefined();
  });

  it('syncs organizations into workspaces without touching their billing, and memberships into workspaceMembers', async () => {
    const organization = (updatedAt: number, name: string) => ({
      id: 'org_acme',
      object: 'organization',
      name,
      slug: 'acme',
      image_url: null,
      max_allowed_memberships: 5,
      created_at: T,
      updated_at: updatedAt,
    });
    await deliver(clerkEvent('organization.created', organization(T + 1000, 'Acme')));
    await collections.workspaces.updateOne(
      { _id: 'org_acme' },
      { $set: { billing: { customerId: 'cus_acme' } } as never },
    );
    await deliver(clerkEvent('organization.updated', organization(T + 3000, 'Acme Inc')));
    await deliver(clerkEvent('organization.updated', organization(T + 2000, 'Acme (stale)')));
    expect(await collections.workspaces.findOne({ _id: 'org_acme' })).toMatchObject({
      clerkOrganizationId: 'org_acme',
      name: 'Acme Inc',
      slug: 'acme',
      maxAllowedMemberships: 5,
      clerkUpdatedAt: new Date(T + 3000),
      billing: { customerId: 'cus_acme' },
    });

    const membership = (updatedAt: number, role: string) => ({
      id: 'orgmem_1',
      object: 'organization_membership',
      role,
      created_at: T,
      updated_at: updatedAt,
      organization: { id: 'org_acme', name: 'Acme Inc' },
      public_user_data: { user_id: 'user_dup', identifier: 'ada@example.com' },
    });
    await deliver(clerkEvent('organizationMembership.created', membership(T + 1000, 'org:member')));
    await deliver(clerkEvent('organizationMembership.updated', membership(T + 2000, 'org:admin')));
    expect(await collections.workspaceMembers.findOne({ _id: 'orgmem_1' })).toMatchObject({
      workspaceId: 'org_acme',
      userId: 'user_dup',
      role: 'org:admin',
      deletedAt: null,
    });
    await deliver(clerkEvent('organizationMembership.deleted', membership(T + 2500, 'org:admin'), T + 2600));
    expect(await collections.workspaceMembers.findOne({ _id: 'orgmem_1' })).toMatchObject({
      role: 'org:admin',
      deletedAt: new Date(T + 2600),
    });
    expect(await collections.workspaceMembers.countDocuments({ workspaceId: 'org_acme', deletedAt: null })).toBe(0);

    await deliver(
      clerkEvent('organization.deleted', { id: 'org_acme', object: 'organization', deleted: true }, T + 4000),
    );
    expect(await collections.workspaces.findOne({ _id: 'org_acme' })).toMatchObject({
      name: 'Acme Inc',
      deletedAt: new Date(T + 4000),
      billing: { customerId: 'cus_acme' },
    });
  });

  it('sets aside at once an event whose payload lacks updated_at', async () => {
    const broken = clerkEvent('user.updated', { id: 'user_broken', first_name: 'No time' });
    await publishTestWebhook(messaging.js, broken);
    await outcomes.waitFor(broken.eventId, 'terminated');
    const row = (await inbox.events.findOne({ _id: `clerk:${broken.eventId}` }))!;
    expect(row.abandonedAt).toBeInstanceOf(Date);
    expect(row.lastError).toMatch(/^UnrecoverableError: Invalid Clerk user: updated_at/);
    expect(await collections.users.countDocuments({ _id: 'user_broken' })).toBe(0);
  });

  it('processes event types it does not handle without writing', async () => {
    const session = clerkEvent('session.created', { id: 'sess_1', user_id: 'user_dup' });
    await deliver(session);
    expect((await inbox.events.findOne({ _id: `clerk:${session.eventId}` }))!.processedAt).toBeInstanceOf(Date);
  });
});
