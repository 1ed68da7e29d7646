/**
 * The `sync` driver: no NATS. The gateway app, given the driver as its publisher, runs the handlers inside the
 * request through the same inbox steps (FerretDB), so the effect is there when the 200 comes back.
 */
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { MongoClient, type Db } from 'mongodb';
import { startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { inboxCollections, type Inbox } from '@berth/inbox';
import { SyncWebhookDriver, WebhooksModule } from '@berth/webhook-handlers';
import { createGatewayApp } from '@berth/gateway/src/app';
import { loadConfig } from '@berth/gateway/src/config';
import { binDir, testRetryPolicy } from '../inbox-crons/support';
import {
  callsOf,
  failFirst,
  githubHeaders,
  poison,
  TEST_PROVIDERS,
  TestWebhookHandlersModule,
  uniqueId,
} from './support';

let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
let inbox: Inbox;
let worker: INestApplicationContext;
let server: Server;
let base: string;

beforeAll(async () => {
  ferret = await startFerretDb({ binDir });
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`webhook_handlers_sync_${process.pid}`);
  inbox = inboxCollections(db);
  const logger = createLogger({ service: 'webhook-sync-test', level: 'silent' });
  worker = await NestFactory.createApplicationContext(
    {
      module: class SyncWorkerModule {},
      imports: [
        WebhooksModule.forRoot({
          driver: 'sync',
          db,
          logger,
          retryPolicy: testRetryPolicy({ baseMs: 60_000, maxAttempts: 3 }),
        }),
        TestWebhookHandlersModule,
      ],
    },
    { logger: false },
  );
  const config = loadConfig({ WEBHOOK_PROVIDERS: TEST_PROVIDERS, WEBHOOK_RATE_LIMIT_PER_MINUTE: '0' });
  const app = createGatewayApp({ config, publisher: worker.get(SyncWebhookDriver).asPublisher(), logger });
  server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.close();
  await worker?.close();
  await mongo?.close();
  await ferret?.stop();
});

const post = async (provider: string, body: string, headers: Record<string, string>) =>
  fetch(`${base}/webhooks/${provider}`, { method: 'POST', body, headers });

describe('the sync driver', () => {
  it('runs the handler inside the gateway request: its effect is there when the 200 comes back, and a retry is a duplicate', async () => {
    const delivery = uniqueId('gh-delivery');
    const body = JSON.stringify({ action: 'reopened', number: 9 });
    const response = await post('gh', body, await githubHeaders(body, 'pull_request', delivery));
    expect(response.status).toBe(200);
    expect(callsOf(delivery)).toEqual([
      expect.objectContaining({ handler: 'GithubPullRequests.opened', type: 'pull_request.reopened', attempt: 1 }),
    ]);
    expect(await inbox.events.findOne({ _id: `gh:${delivery}` })).toMatchObject({
      attempts: 1,
      processedAt: expect.any(Date),
    });
    expect((await post('gh', body, await githubHeaders(body, 'pull_request', delivery))).status).toBe(200);
    expect(callsOf(delivery)).toHaveLength(1);
  });

  it('retries a failing handler at once, up to maxAttempts, with no wait', async () => {
    const id = uniqueId('msg');
    failFirst.set(id, 2);
    const started = Date.now();
    await expect(
      worker
        .get(SyncWebhookDriver)
        .deliver({ provider: 'acme', id, type: 'invoice.settled', body: { type: 'invoice.settled' } }),
    ).resolves.toBe('processed');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(callsOf(id).map((call) => call.attempt)).toEqual([1, 2, 3]);
    expect(await inbox.events.findOne({ _id: `acme:${id}` })).toMatchObject({
      attempts: 3,
      lastError: 'Error: acme is down (attempt 2)',
    });
  });

  it("rejects with the handler's error when the event fails for good, and records it set aside for UnrecoverableError", async () => {
    const always = uniqueId('msg');
    failFirst.set(always, 99);
    await expect(
      worker.get(SyncWebhookDriver).deliver({ provider: 'acme', id: always, type: 'x', body: {} }),
    ).rejects.toThrow('acme is down (attempt 3)');
    const bad = uniqueId('msg');
    poison.add(bad);
    await expect(
      worker.get(SyncWebhookDriver).deliver({ provider: 'acme', id: bad, type: 'x', body: {} }),
    ).rejects.toThrow(/can never be applied/);
    expect(await inbox.events.findOne({ _id: `acme:${bad}` })).toMatchObject({
      abandonedAt: expect.any(Date),
      attempts: 1,
    });
    expect(callsOf(bad)).toHaveLength(1);
    // Resent by the provider once fixed: reopened and processed, once.
    poison.delete(bad);
    await expect(
      worker
        .get(SyncWebhookDriver)
        .deliver({ provider: 'acme', id: bad, type: 'x', body: {}, receivedAt: new Date(Date.now() + 1000) }),
    ).resolves.toBe('processed');
    await expect(
      worker.get(SyncWebhookDriver).deliver({ provider: 'acme', id: bad, type: 'x', body: {} }),
    ).resolves.toBe('already_processed');
    expect(callsOf(bad)).toHaveLength(2);
  });
});
