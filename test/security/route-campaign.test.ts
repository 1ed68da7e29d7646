/**
 * Issue 22, item 2: every route of every HTTP listener Berth has (the gateway's webhook and health apps, the
 * dispatcher, the console with its portal, and the health server of the services that serve no HTTP), taken from
 * the routers the apps really mount, requested without credentials and with a wrong one, in every spelling a router
 * and a path check could read apart (see support/route-campaign.ts). Every answer must be 401, 403 or 404 and carry
 * no data: neither the seeded event's payload, nor the seeded endpoint, nor anything but `{ error, message }`. The
 * apps run on free ports against a real nats-server and FerretDB.
 */
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { startFerretDb, startNatsServer, type FerretDbHandle, type NatsServerHandle } from '@berth/local-infra';
import { createMetricsRegistry, HEALTH_SERVER_PATHS, startHealthServer, type HealthServer } from '@berth/metrics';
import { inboxCollections } from '@berth/inbox';
import { loadConfig as loadDispatcherConfig } from '@berth/dispatcher/src/config';
import { runDispatcher, type RunningDispatcher } from '@berth/dispatcher/src/run-dispatcher';
import { loadConfig as loadConsoleConfig } from '@berth/console/src/config';
import { runConsole, type RunningConsole } from '@berth/console/src/run-console';
import { hashConsoleToken } from '@berth/console/src/auth/console-tokens';
import { startGateway, startNatsFixture, type NatsFixture, type TestGateway } from '@berth/gateway/src/test-harness';
import { toolsBinDir } from '../support/mesh';
import {
  campaignFailure,
  campaignRequests,
  routesOf,
  runCampaign,
  type CampaignRequest,
  type CampaignRoute,
} from './support/route-campaign';

const MARKER = `campaign-marker-${randomBytes(8).toString('hex')}`;
const DISPATCHER_TOKEN = `dispatcher-${randomBytes(24).toString('hex')}`;
const OPERATOR_TOKEN = `operator-${randomBytes(24).toString('hex')}`;
const WRONG_TOKEN = `Bearer wrong-${randomBytes(24).toString('hex')}`;
const EVENT_ID = `evt_${MARKER}`;

let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let gatewayNats: NatsFixture;
let mongo: MongoClient;
let db: Db;
let gateway: TestGateway;
let dispatcher: RunningDispatcher;
let consoleApp: RunningConsole;
let health: HealthServer;
let webDir: string;
let endpointId: string;
let endpointSecret: string;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

beforeAll(async () => {
  [nats, ferret] = await Promise.all([
    startNatsServer({ binDir: toolsBinDir }),
    startFerretDb({ binDir: toolsBinDir }),
  ]);
  gatewayNats = await startNatsFixture(toolsBinDir);
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`routes_${randomBytes(4).toString('hex')}`);
  const common = { NATS_URL: nats.url, MONGO_URL: ferret.url, MONGO_DB: db.databaseName, LOG_LEVEL: 'silent' };

  gateway = await startGateway(gatewayNats, {
    env: { STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`, WEBHOOK_RATE_LIMIT_PER_MINUTE: '0' },
  });
  dispatcher = await runDispatcher(
    loadDispatcherConfig({ ...common, HOST: '127.0.0.1', PORT: '0', DISPATCHER_API_TOKEN: DISPATCHER_TOKEN }),
  );
  const created = await fetch(`http://127.0.0.1:${dispatcher.port}/v1/endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DISPATCHER_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ workspaceId: 'ws_campaign', url: 'https://example.com/hook', description: MARKER }),
  });
  expect(created.status).toBe(201);
  const answer = (await created.json()) as { endpoint: { id: string }; secret: string };
  endpointId = answer.endpoint.id;
  endpointSecret = answer.secret;

  await inboxCollections(db).events.insertOne({
    _id: `stripe:${EVENT_ID}`,
    provider: 'stripe',
    eventId: EVENT_ID,
    type: 'customer.updated',
    receivedAt: new Date(),
    payload: JSON.stringify({ id: EVENT_ID, secret: MARKER }),
    attempts: 0,
    lastError: `Error: ${MARKER}`,
    lastAttemptAt: null,
    processedAt: null,
    abandonedAt: null,
  } as never);

  webDir = await mkdtemp(join(tmpdir(), 'berth-route-campaign-web-'));
  await writeFile(join(webDir, 'index.html'), '<!doctype html><title>console</title>');
  consoleApp = await runConsole(
    loadConsoleConfig({
      ...common,
      HOST: '127.0.0.1',
      PORT: '0',
      CONSOLE_TOKENS: JSON.stringify([{ name: 'alice', role: 'operator', sha256: hashConsoleToken(OPERATOR_TOKEN) }]),
      CONSOLE_SIGNING_KEY: randomBytes(32).toString('base64'),
      DISPATCHER_URL: `http://127.0.0.1:${dispatcher.port}`,
      DISPATCHER_API_TOKEN: DISPATCHER_TOKEN,
      CONSOLE_WEB_DIR: webDir,
    }),
  );
  health = await startHealthServer({
    port: 0,
    host: '127.0.0.1',
    registry: createMetricsRegistry(),
    readiness: () => true,
  });
}, 120_000);

afterAll(async () => {
  agent.destroy();
  await health?.close();
  await consoleApp?.stop();
  await dispatcher?.stop();
  await gateway?.close();
  await gatewayNats?.close();
  await mongo?.close();
  await Promise.all([ferret?.stop(), nats?.stop()]);
  if (webDir) await rm(webDir, { recursive: true, force: true });
});

/** One listener of the campaign: where it listens, its routes, and which of them are public. */
interface Listener {
  name: string;
  port: () => number;
  routes: () => CampaignRoute[];
  publicRoutes: string[];
}

const PROBES = ['GET /healthz', 'GET /readyz', 'GET /metrics'];
const samples = () => ({ provider: 'stripe', eventId: EVENT_ID, id: endpointId, type: 'x1', name: 'x1', queue: 'x1' });

const listeners: Listener[] = [
  {
    name: 'gateway',
    port: () => Number(new URL(gateway.baseUrl).port),
    routes: () => routesOf(gateway.app),
    publicRoutes: ['POST /webhooks/:provider', 'GET /healthz'],
  },
  {
    name: 'gateway-health',
    port: () => Number(new URL(gateway.healthUrl).port),
    routes: () => HEALTH_SERVER_PATHS.map((pattern) => ({ method: 'GET', pattern })),
    publicRoutes: PROBES,
  },
  {
    name: 'dispatcher',
    port: () => dispatcher.port,
    routes: () => routesOf(dispatcher.app),
    publicRoutes: PROBES,
  },
  {
    name: 'console',
    port: () => consoleApp.port,
    routes: () => routesOf(consoleApp.app),
    // The front end (every other GET serves its index.html), and the probes.
    publicRoutes: [...PROBES, 'GET /{*path}'],
  },
  {
    name: 'health-server',
    port: () => health.port,
    routes: () => HEALTH_SERVER_PATHS.map((pattern) => ({ method: 'GET', pattern })),
    publicRoutes: PROBES,
  },
];

describe('every route of every app, spelled every way, without valid credentials', () => {
  const summary: string[] = [];
  afterAll(() => process.stdout.write(`route campaign:\n${summary.join('\n')}\n`));

  it.each(listeners.map((listener) => [listener.name, listener] as const))(
    '%s answers 401, 403 or 404 with no data',
    async (_name, listener) => {
      const routes = listener.routes();
      expect(routes.length).toBeGreaterThan(0);
      const requests: CampaignRequest[] = campaignRequests({
        app: listener.name,
        routes,
        publicRoutes: listener.publicRoutes,
        samples: samples(),
        wrongToken: WRONG_TOKEN,
      });
      const answers = await runCampaign(listener.port(), agent, requests);
      const failures = answers.flatMap((answer) => campaignFailure(answer, [MARKER, endpointSecret]) ?? []);
      const statuses: Record<number, number> = {};
      for (const { status } of answers) statuses[status] = (statuses[status] ?? 0) + 1;
      summary.push(
        `  ${listener.name}: ${routes.length} routes, ${requests.length} requests, ${failures.length} failed; statuses ${JSON.stringify(statuses)}`,
      );
      expect(failures.slice(0, 40)).toEqual([]);
      expect(failures).toHaveLength(0);
    },
    120_000,
  );

  it('still serves the front end, the portal and the API to whom they are for', async () => {
    const base = `http://127.0.0.1:${consoleApp.port}`;
    for (const page of ['/', '/events/stripe/evt_1AbC', '/portal'])
      expect([page, (await fetch(`${base}${page}`)).status]).toEqual([page, 200]);
    const unknown = await fetch(`${base}/api/nothing`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expect([unknown.status, await unknown.json()]).toEqual([404, expect.objectContaining({ error: 'not_found' })]);
    const session = await fetch(`${base}/api/portal-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId: 'ws_campaign', subject: 'user_1' }),
    });
    expect(session.status).toBe(201);
    const { token } = (await session.json()) as { token: string };
    const endpoints = await fetch(`${base}/api/portal/endpoints`, { headers: { authorization: `Bearer ${token}` } });
    expect(endpoints.status).toBe(200);
    expect(((await endpoints.json()) as { endpoints: { id: string }[] }).endpoints.map((e) => e.id)).toEqual([
      endpointId,
    ]);
    // A portal token is no console token.
    expect((await fetch(`${base}/api/webhooks/events`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      401,
    );
  });

  it('reaches the seeded data with the right credentials (the samples name real records)', async () => {
    const event = await fetch(`http://127.0.0.1:${consoleApp.port}/api/webhooks/events/stripe/${EVENT_ID}`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(event.status).toBe(200);
    expect(await event.text()).toContain(EVENT_ID);
    const endpoint = await fetch(`http://127.0.0.1:${dispatcher.port}/v1/endpoints/${endpointId}`, {
      headers: { authorization: `Bearer ${DISPATCHER_TOKEN}` },
    });
    expect(endpoint.status).toBe(200);
    expect(await endpoint.text()).toContain(MARKER);
  });
});
