/**
 * The webhook handler API on real servers: a gateway (in-process, the real app and publisher) storing signed
 * GitHub, Shopify and Standard Webhooks events in JetStream, and a worker whose `WebhooksModule` consumes them
 * through the inbox on FerretDB.
 */
import { waitFor } from '@berth/local-infra/testing';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { MongoClient, type Db } from 'mongodb';
import { startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { createLogger, LogContextStore } from '@berth/logger';
import {
  inboxCollections,
  recoverWebhookEvents,
  republishWebhookEvent,
  waitForInboxEvent,
  type Inbox,
  type InboxEventDocument,
  type WebhookEventAlert,
} from '@berth/inbox';
import { captureLogLines, OutcomeLog } from '@berth/inbox/testing';
import {
  connectMessaging,
  ensureStream,
  webhookProviderCoverage,
  webhooksStream,
  type Messaging,
} from '@berth/messaging';
import { WebhooksModule } from '@berth/webhook-handlers';
import { startGateway, STREAM, type NatsFixture, type TestGateway } from '@berth/gateway/src/test-harness';
import { runCliCaptured } from '@berth/cli/src/testing';
import { binDir, testRetryPolicy } from '../inbox-crons/support';
import { startNatsWithUsers, type NatsWithUsers } from '../support/nats-with-users';
import {
  callsOf,
  failFirst,
  githubHeaders,
  poison,
  shopifyHeaders,
  standardHeaders,
  TEST_PROVIDERS,
  TestWebhookHandlersModule,
  uniqueId,
} from './support';

const RETRY_BASE_MS = 300;

/**
 * nats-server with Berth's NATS users: the in-process gateway as `gateway`, the handlers as `app-worker` (product
 * teams' handlers run in the app worker), the recovery cron as the scheduler, the CLI and the test as the operator.
 */
let users: NatsWithUsers;
let nats: NatsFixture;
const as: Partial<Record<'gateway' | 'app-worker' | 'scheduler' | 'operator', Messaging>> = {};
let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
let inbox: Inbox;
let gateway: TestGateway;
let worker: INestApplicationContext;
const outcomes = new OutcomeLog();
const logs = captureLogLines();

beforeAll(async () => {
  [users, ferret] = await Promise.all([startNatsWithUsers({ binDir }), startFerretDb({ binDir })]);
  for (const user of ['gateway', 'app-worker', 'scheduler', 'operator'] as const)
    as[user] = await connectMessaging({
      servers: users.urlAs(user),
      name: `webhook-handlers-${user}`,
      logger: createLogger({ service: 'webhook-handlers-test', level: 'silent' }),
    });
  await ensureStream(as.gateway!.jsm, webhooksStream());
  const operator = as.operator!;
  nats = {
    server: users.server,
    messaging: as.gateway!,
    messageCount: async () => (await operator.jsm.streams.info(STREAM)).state.messages,
    lastMessage: async (subject) => (await operator.jsm.streams.getMessage(STREAM, { last_by_subj: subject }))!,
    purge: () => Promise.reject(new Error('no NATS user may purge WEBHOOKS')),
    close: async () => undefined,
  };
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`webhook_handlers_${process.pid}`);
  inbox = inboxCollections(db);
  gateway = await startGateway(nats, {
    env: { WEBHOOK_PROVIDERS: TEST_PROVIDERS, WEBHOOK_RESEND_COPY_AFTER_MS: '0', WEBHOOK_RATE_LIMIT_PER_MINUTE: '0' },
  });
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'webhook-handlers-test',
    level: 'info',
    context: logContext,
    destination: logs.destination,
  });
  worker = await NestFactory.createApplicationContext(
    {
      module: class WorkerModule {},
      imports: [
        WebhooksModule.forRoot({
          driver: 'jetstream',
          messaging: as['app-worker']!,
          db,
          logger,
          logContext,
          leaseMs: 5000,
          shutdownGraceMs: 5000,
          retryPolicy: testRetryPolicy({ baseMs: RETRY_BASE_MS, maxAttempts: 4 }),
          defaults: { concurrency: 4, ackWaitMs: 10_000, onOutcome: outcomes.record },
        }),
        TestWebhookHandlersModule,
      ],
    },
    { logger: false },
  );
});

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await mongo?.close();
  await Promise.all(Object.values(as).map((connection) => connection.close()));
  await Promise.all([ferret?.stop(), users?.stop()]);
});

/** Runs `berth <argv…>` in-process against this file's servers. */
async function berth(...argv: string[]): Promise<{ code: number; out: string }> {
  const { code, out } = await runCliCaptured(argv, {
    natsUrl: users.urlAs('operator'),
    mongoUrl: ferret.url,
    mongoDb: db.databaseName,
  });
  return { code, out };
}

/** Resolves with the inbox row of event `id` of provider acme once `until` holds for it. */
const acmeEvent = (id: string, until: (event: InboxEventDocument) => boolean) =>
  waitForInboxEvent({ inbox, key: `acme:${id}`, until, timeoutMs: 20_000 });

/** Posts `body` as acme event `id`, signed, and expects the gateway to accept it. */
async function postAcme(id: string, body: string): Promise<void> {
  expect((await gateway.post('acme', body, standardHeaders(body, id))).status).toBe(200);
}

/** Sends acme event `id` while its handler fails it for good, and resolves with its row once it is set aside. */
async function sendPoisoned(id: string, body: string): Promise<InboxEventDocument> {
  poison.add(id);
  await postAcme(id, body);
  return acmeEvent(id, (event) => event.abandonedAt !== null);
}

/** What a handler gets of the headers a test sent: the provider's own, not the HTTP plumbing. */
function withoutContentType(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type'));
}

describe('webhook handlers on JetStream', () => {
  it('gives every provider with a handler its own durable consumer on webhooks.<provider>.>', async () => {
    const coverage = await webhookProviderCoverage(nats.messaging.jsm, ['gh', 'shop', 'acme', 'nobody']);
    expect(coverage.map(({ provider, consumers }) => [provider, consumers])).toEqual([
      ['acme', ['webhooks-acme']],
      ['gh', ['webhooks-gh']],
      ['nobody', []],
      ['shop', ['webhooks-shop']],
    ]);
  });

  it('runs a GitHub-signed pull_request.opened once, however often GitHub delivers it', async () => {
    const delivery = uniqueId('gh-delivery');
    const body = JSON.stringify({ action: 'opened', number: 42, pull_request: { id: 7, title: 'Add handlers' } });
    const signed = await githubHeaders(body, 'pull_request', delivery);
    const sent = {
      ...signed,
      authorization: 'Bearer not-for-handlers',
      cookie: 'session=secret',
      'x-github-hook-id': '123',
    };
    for (let i = 0; i < 3; i += 1) expect((await gateway.post('gh', body, sent)).status).toBe(200);
    const row = await waitForInboxEvent({
      inbox,
      key: `gh:${delivery}`,
      until: (event) => event.processedAt !== null,
      timeoutMs: 20_000,
    });
    const kept = {
      'x-github-event': 'pull_request',
      'x-github-delivery': delivery,
      'x-hub-signature-256': signed['x-hub-signature-256'],
      'x-github-hook-id': '123',
    };
    expect(row).toMatchObject({
      provider: 'gh',
      type: 'pull_request.opened',
      attempts: 1,
      lastError: null,
      headers: kept,
    });
    expect(callsOf(delivery)).toEqual([
      expect.objectContaining({
        handler: 'GithubPullRequests.opened',
        type: 'pull_request.opened',
        attempt: 1,
        body: expect.objectContaining({ number: 42 }),
      }),
    ]);
    // The provider's signed and identifying headers, and nothing else: no cookie, no authorization, no content-type.
    expect(callsOf(delivery)[0].headers).toEqual(kept);
    // The copies GitHub sent again may be acked before the first finishes: wait for the line itself.
    const processedLines = async () =>
      logs.lines.filter((line) => line.eventId === delivery && line.msg === 'Webhook event processed');
    const lines = await waitFor(processedLines, {
      what: 'the processed line',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (found) => found.length > 0,
    });
    expect(lines).toEqual([expect.objectContaining({ provider: 'gh', eventType: 'pull_request.opened', attempt: 1 })]);
  });

  it('runs a Shopify-signed orders/create once, and a type no method names is processed with nothing run', async () => {
    const webhookId = uniqueId('shop-webhook');
    const body = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', total_price: '12.00' });
    expect((await gateway.post('shop', body, shopifyHeaders(body, 'orders/create', webhookId))).status).toBe(200);
    expect((await gateway.post('shop', body, shopifyHeaders(body, 'orders/create', webhookId))).status).toBe(200);
    const other = uniqueId('shop-webhook');
    expect((await gateway.post('shop', body, shopifyHeaders(body, 'orders/paid', other))).status).toBe(200);
    await waitForInboxEvent({
      inbox,
      key: `shop:${webhookId}`,
      until: (event) => event.processedAt !== null,
      timeoutMs: 20_000,
    });
    await waitForInboxEvent({
      inbox,
      key: `shop:${other}`,
      until: (event) => event.processedAt !== null,
      timeoutMs: 20_000,
    });
    expect(callsOf(webhookId)).toEqual([
      expect.objectContaining({ handler: 'ShopifyOrders.created', type: 'orders/create', attempt: 1 }),
    ]);
    expect(callsOf(webhookId)[0].headers).toEqual(withoutContentType(shopifyHeaders(body, 'orders/create', webhookId)));
    expect(callsOf(other)).toEqual([]);
  });

  it('runs a Standard Webhooks event once', async () => {
    const id = uniqueId('msg');
    const body = JSON.stringify({ type: 'invoice.settled', data: { invoice: 'in_1' } });
    const sent = standardHeaders(body, id);
    expect((await gateway.post('acme', body, sent)).status).toBe(200);
    await postAcme(id, body);
    await acmeEvent(id, (event) => event.processedAt !== null);
    expect(callsOf(id).map(({ handler, type, attempt }) => [handler, type, attempt])).toEqual([
      ['AcmeEvents.any', 'invoice.settled', 1],
    ]);
    expect(callsOf(id)[0].headers).toEqual(withoutContentType(sent));
  });

  it('retries a failing handler on the retry schedule until it succeeds', async () => {
    const id = uniqueId('msg');
    failFirst.set(id, 2);
    const body = JSON.stringify({ type: 'invoice.settled', data: {} });
    await postAcme(id, body);
    const row = await acmeEvent(id, (event) => event.processedAt !== null);
    expect(row).toMatchObject({ attempts: 3, lastError: 'Error: acme is down (attempt 2)', abandonedAt: null });
    const [first, second, third] = callsOf(id);
    expect([first.attempt, second.attempt, third.attempt]).toEqual([1, 2, 3]);
    // The schedule: base · 2^(n−1) after the n-th failure (300 ms, then 600 ms), never sooner.
    expect(second.at - first.at).toBeGreaterThanOrEqual(RETRY_BASE_MS - 20);
    expect(second.at - first.at).toBeLessThan(RETRY_BASE_MS + 2000);
    expect(third.at - second.at).toBeGreaterThanOrEqual(2 * RETRY_BASE_MS - 20);
    expect(third.at - second.at).toBeLessThan(2 * RETRY_BASE_MS + 2000);
    await outcomes.waitFor(id, 'acked');
    expect(outcomes.outcomes(id)).toEqual(['retried', 'retried', 'acked']);
  });

  it('sets a poison event aside with one alert; the provider resending it, fixed, gets it processed once', async () => {
    const id = uniqueId('msg');
    const body = JSON.stringify({ type: 'customer.merged', data: { customer: 'c_1' } });
    const setAside = await sendPoisoned(id, body);
    expect(setAside).toMatchObject({
      attempts: 1,
      processedAt: null,
      lastError: `UnrecoverableError: acme event ${id} can never be applied`,
    });
    await outcomes.waitFor(id, 'terminated');

    const alerts: WebhookEventAlert[] = [];
    const recovery = {
      inbox,
      messaging: as.scheduler!,
      logger: createLogger({ service: 'recovery', level: 'silent' }),
      alert: async (alert: WebhookEventAlert) => void alerts.push(alert),
      minAgeMs: 0,
    };
    expect((await recoverWebhookEvents(recovery)).alerted).toBe(1);
    expect((await recoverWebhookEvents(recovery)).alerted).toBe(0);
    expect(alerts).toEqual([expect.objectContaining({ provider: 'acme', eventId: id })]);

    // The team fixes the cause; the provider's dashboard sends the event again (same id, signed anew).
    poison.delete(id);
    await postAcme(id, body);
    const processed = await acmeEvent(id, (event) => event.processedAt !== null);
    expect(processed).toMatchObject({ abandonedAt: null, attempts: 1 });
    expect(callsOf(id).map((call) => call.attempt)).toEqual([1, 1]);

    // Sent once more after it was processed: stored as a marked copy, acked, nothing runs again.
    await postAcme(id, body);
    await outcomes.waitFor(id, 'acked', 2);
    expect(callsOf(id)).toHaveLength(2);
    expect(
      logs.lines.filter(
        (line) => line.eventId === id && line.msg === 'Set-aside webhook event sent again by its provider: reopened',
      ),
    ).toHaveLength(1);
  });

  it('leaves a set-aside event set aside when JetStream redelivers its old message', async () => {
    const id = uniqueId('msg');
    await sendPoisoned(id, JSON.stringify({ type: 'customer.merged', data: {} }));
    await outcomes.waitFor(id, 'terminated');
    poison.delete(id);
    // A copy received before the set-aside (an old message, a requeue) carries the first receive time.
    const row = await inbox.events.findOne({ _id: `acme:${id}` });
    await republishWebhookEvent({ js: as.operator!.js, event: row!, msgId: `acme:${id}:old-copy` });
    await outcomes.waitFor(id, 'acked');
    expect(await inbox.events.findOne({ _id: `acme:${id}` })).toMatchObject({
      processedAt: null,
      attempts: 1,
      abandonedAt: row!.abandonedAt,
    });
    expect(callsOf(id)).toHaveLength(1);
  });

  it('berth webhooks redeliver and retry-abandoned reopen a set-aside event of a catalog provider, which then runs once', async () => {
    const [one, two] = [uniqueId('msg'), uniqueId('msg')];
    for (const id of [one, two]) {
      await sendPoisoned(id, JSON.stringify({ type: 'customer.merged', data: {} }));
      poison.delete(id);
    }
    expect((await berth('webhooks', 'redeliver', 'acme', one)).code).toBe(0);
    // `one` is reopened already; `two` and the event the test above left set aside are reopened now.
    const retried = await berth('webhooks', 'retry-abandoned', '--provider', 'acme');
    expect(retried).toMatchObject({
      code: 0,
      out: expect.stringContaining('Reopened 2 set-aside webhook event(s); 2 published again.'),
    });
    expect(retried.out).toContain(two);
    expect(retried.out).not.toContain(one);
    for (const id of [one, two]) {
      await acmeEvent(id, (event) => event.processedAt !== null);
      expect(callsOf(id).map((call) => call.attempt)).toEqual([1, 1]);
      // The requeued message carries the headers the inbox row kept, as the gateway's first one did.
      const [first, again] = callsOf(id);
      expect(first.headers).toMatchObject({ 'webhook-id': id, 'webhook-signature': expect.stringMatching(/^v1,/) });
      expect(again.headers).toEqual(first.headers);
    }
  });

  it("berth webhooks providers lists each provider's consumers, and exits 1 for one nobody reads", async () => {
    const { code, out } = await berth('webhooks', 'providers', 'nobody');
    expect(code).toBe(1);
    expect(out).toMatch(/^gh\s+webhooks-gh\s+\d+$/m);
    expect(out).toMatch(/^acme\s+webhooks-acme\s+\d+$/m);
    expect(out).toMatch(/^nobody\s+NONE\s+0$/m);
    expect(out).toContain('No consumer reads nobody');
  });
});
