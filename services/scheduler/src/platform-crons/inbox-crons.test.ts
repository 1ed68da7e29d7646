/**
 * The platform crons with the real `@berth/inbox` operations (createInboxOperations, as the scheduler binds them) on
 * the embedded store and nats-server, run the way integration tests run crons: by adding the cron's job to its queue (sync
 * driver).
 */
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { MongoClient, type Db } from 'mongodb';
import { Counter, Registry } from 'prom-client';
import {
  defaultToolsBinDir,
  startFerretDb,
  startNatsServer,
  type FerretDbHandle,
  type NatsServerHandle,
} from '@berth/local-infra';
import { inboxCollections, WEBHOOK_SET_ASIDE_COUNTER, type Inbox, type InboxEventDocument } from '@berth/inbox';
import { getMessageQueueToken, type MessageQueueService } from '@berth/jobs';
import { createLogger } from '@berth/logger';
import { connectMessaging, ensureStream, webhooksStream, type Messaging } from '@berth/messaging';
import { createInboxOperations } from './inbox-operations';
import { WebhookRecoveryCronJob } from './jobs/webhook-recovery.cron.job';
import { WebhookRetentionCronJob } from './jobs/webhook-retention.cron.job';
import { PlatformCronsModule } from './platform-crons.module';
import { PLATFORM_CRON_QUEUE } from './platform-crons.tokens';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
const DAY_MS = 24 * 3600 * 1000;
const silent = createLogger({ service: 'scheduler', level: 'silent' });

let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
let inbox: Inbox;
let messaging: Messaging;
let alertServer: Server;
let app: INestApplicationContext;
const alerts: Array<{ text: string; alert: { alertId: string; eventId: string } }> = [];
const registry = new Registry();
const setAside = new Counter({
  ...WEBHOOK_SET_ASIDE_COUNTER,
  labelNames: [...WEBHOOK_SET_ASIDE_COUNTER.labelNames],
  registers: [registry],
});

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNatsServer({ binDir }), startFerretDb({ binDir })]);
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`platform_crons_${process.pid}`);
  inbox = inboxCollections(db);
  messaging = await connectMessaging({ servers: nats.url, name: 'platform-crons-test', logger: silent });
  await ensureStream(messaging.jsm, webhooksStream());
  alertServer = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      alerts.push(JSON.parse(body));
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => alertServer.listen(0, '127.0.0.1', resolve));
  const operations = createInboxOperations({
    db,
    messaging,
    logger: silent,
    retentionDays: 30,
    setAsideMetric: setAside,
    alertWebhookUrl: `http://127.0.0.1:${(alertServer.address() as AddressInfo).port}/alerts`,
  });
  app = await NestFactory.createApplicationContext(
    PlatformCronsModule.register({ driver: 'sync', logger: silent, operations }),
    { logger: false },
  );
}, 60000);

afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => alertServer?.close(resolve));
  await messaging?.close();
  await mongo?.close();
  await Promise.all([nats?.stop(), ferret?.stop()]);
});

function event(eventId: string, fields: Partial<InboxEventDocument>): InboxEventDocument {
  const receivedAt = fields.receivedAt ?? new Date(Date.now() - 3600_000);
  return {
    _id: `stripe:${eventId}`,
    provider: 'stripe',
    eventId,
    type: 'customer.subscription.updated',
    receivedAt,
    payload: JSON.stringify({ id: eventId, type: 'customer.subscription.updated' }),
    attempts: 1,
    lastError: 'Error: boom',
    lastAttemptAt: receivedAt,
    processedAt: null,
    abandonedAt: null,
    leaseOwner: null,
    leaseUntil: null,
    ...fields,
  };
}

const platformQueue = (): MessageQueueService =>
  app.get<MessageQueueService>(getMessageQueueToken(PLATFORM_CRON_QUEUE));

async function webhookMessages(): Promise<number> {
  return (await messaging.jsm.streams.info('WEBHOOKS')).state.messages;
}

describe('WebhookRecoveryCronJob and WebhookRetentionCronJob with the inbox operations', () => {
  it('adding WebhookRecoveryCronJob runs the recovery once: the lost event is requeued, the exhausted one set aside with one alert', async () => {
    await inbox.events.insertMany([
      event('evt_lost', {}),
      event('evt_exhausted', { attempts: 33, lastError: 'Error: still failing' }),
      event('evt_young', { receivedAt: new Date(Date.now() - 60_000) }),
    ]);

    await platformQueue().add(WebhookRecoveryCronJob.name, {});
    expect(await webhookMessages()).toBe(1);
    const lost = await inbox.events.findOne({ _id: 'stripe:evt_lost' });
    expect(lost?.requeuedAt).toBeInstanceOf(Date);
    expect(lost?.processedAt).toBeNull();
    expect((await inbox.events.findOne({ _id: 'stripe:evt_exhausted' }))?.abandonedAt).toBeInstanceOf(Date);
    const young = await inbox.events.findOne({ _id: 'stripe:evt_young' });
    expect({ requeuedAt: young?.requeuedAt ?? null, abandonedAt: young?.abandonedAt }).toEqual({
      requeuedAt: null,
      abandonedAt: null,
    });
    expect(alerts.map((alert) => alert.alert.eventId)).toEqual(['evt_exhausted']);
    expect(alerts[0].text).toMatch(/evt_exhausted.*set aside after 33 attempt.*still failing/);
    expect((await registry.getSingleMetric(WEBHOOK_SET_ASIDE_COUNTER.name)!.get()).values).toEqual([
      expect.objectContaining({ labels: { provider: 'stripe' }, value: 1 }),
    ]);

    // The next tick: the requeued event's message is live now, the set-aside one is not alerted twice.
    await platformQueue().add(WebhookRecoveryCronJob.name, {});
    expect(await webhookMessages()).toBe(1);
    expect(alerts).toHaveLength(1);
  });

  it('adding WebhookRetentionCronJob deletes the processed events past WEBHOOK_EVENT_RETENTION_DAYS, and no unprocessed one', async () => {
    const old = new Date(Date.now() - 40 * DAY_MS);
    await inbox.events.insertMany([
      event('evt_old_done', { receivedAt: old, lastAttemptAt: old, processedAt: new Date(old.getTime() + 1000) }),
      event('evt_recent_done', {
        receivedAt: new Date(Date.now() - DAY_MS),
        processedAt: new Date(Date.now() - DAY_MS),
      }),
      event('evt_old_abandoned', {
        receivedAt: old,
        lastAttemptAt: old,
        attempts: 33,
        abandonedAt: new Date(old.getTime() + 1000),
      }),
    ]);
    await platformQueue().add(WebhookRetentionCronJob.name, {});
    expect(await inbox.events.findOne({ _id: 'stripe:evt_old_done' })).toBeNull();
    expect(await inbox.events.findOne({ _id: 'stripe:evt_recent_done' })).not.toBeNull();
    expect(await inbox.events.findOne({ _id: 'stripe:evt_old_abandoned' })).not.toBeNull();
    expect(await inbox.events.findOne({ _id: 'stripe:evt_lost' })).not.toBeNull();
  });
});
