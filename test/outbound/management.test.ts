import { waitFor } from '@berth/local-infra/testing';
import { Writable } from 'node:stream';
import { runCli } from '../../services/cli/src/run-cli';
import { loadConfig } from '../../services/dispatcher/src/config';
import { runDispatcher, type RunningDispatcher } from '../../services/dispatcher/src/run-dispatcher';
import { WebhookReceiver } from '../support/webhook-receiver';
import { newKey, OutboundTestServers } from './support';
import { sampleValue } from '@berth/metrics/testing';
import {
  createOutboundSender,
  endpointConsumerName,
  OUTBOUND_DELIVERIES_STREAM,
  type DeliveryView,
  type EndpointView,
} from '@berth/outbound';

const TOKEN = 'management-test-token-0123456789abcdef';
const servers = new OutboundTestServers();
let running: RunningDispatcher;
let receiver: WebhookReceiver;
let mongoDb: string;
let failing = false;

beforeAll(async () => {
  await servers.start();
  receiver = await new WebhookReceiver([], () => ({ status: failing ? 500 : 200 })).start();
  mongoDb = servers.freshDb().databaseName;
  running = await runDispatcher(
    loadConfig({
      NATS_URL: servers.natsUrlAs('dispatcher'),
      MONGO_URL: servers.ferret.url,
      MONGO_DB: mongoDb,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
      OUTBOUND_ALLOWED_PORTS: '1-65535',
      OUTBOUND_RETRY_SCHEDULE_MS: '0,100,100',
      DISPATCHER_API_TOKEN: TOKEN,
    }),
  );
}, 60_000);
afterAll(async () => {
  await running?.stop();
  await receiver?.stop();
  await servers.stop();
});

async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  token = TOKEN,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`http://127.0.0.1:${running.port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function berth(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const code = await runCli(argv, {
    config: { natsUrl: servers.natsUrlAs('operator'), mongoUrl: servers.ferret.url, mongoDb },
    stdout: sink((text) => (out += text)),
    stderr: sink((text) => (err += text)),
  });
  return { code, out, err };
}

async function deliveriesOf(endpointId: string): Promise<DeliveryView[]> {
  return (await api<{ data: DeliveryView[] }>('GET', `/v1/deliveries?endpointId=${endpointId}`)).body.data;
}

describe('endpoint management API and CLI', () => {
  it('creates, lists, updates, disables, enables and rotates endpoints; requires the token', async () => {
    expect((await api('GET', '/v1/endpoints', undefined, 'wrong')).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${running.port}/readyz`)).status).toBe(200);
    const invalid = await api<{ error: string }>('POST', '/v1/endpoints', {
      workspaceId: 'ws_api',
      url: 'ftp://example.com',
    });
    expect(invalid).toEqual({ status: 400, body: expect.objectContaining({ error: 'invalid_request' }) });

    const created = await api<{ endpoint: EndpointView; secret: string }>('POST', '/v1/endpoints', {
      workspaceId: 'ws_api',
      url: receiver.url,
      eventTypes: ['invoice.paid'],
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.endpoint.id;
    expect(
      (await api<{ data: EndpointView[] }>('GET', '/v1/endpoints?workspaceId=ws_api')).body.data.map(
        (endpoint) => endpoint.id,
      ),
    ).toEqual([id]);
    expect(
      (
        await api<EndpointView>('PATCH', `/v1/endpoints/${id}`, {
          eventTypes: ['invoice.paid', 'user.created'],
          rateLimitPerSecond: 50,
        })
      ).body,
    ).toMatchObject({ eventTypes: ['invoice.paid', 'user.created'], rateLimitPerSecond: 50 });
    expect((await api<EndpointView>('POST', `/v1/endpoints/${id}/disable`)).body).toMatchObject({
      enabled: false,
      disabledReason: 'manual',
    });
    expect((await api<EndpointView>('POST', `/v1/endpoints/${id}/enable`)).body).toMatchObject({ enabled: true });
    const rotated = await api<{ endpoint: EndpointView; secret: string }>('POST', `/v1/endpoints/${id}/rotate-secret`, {
      overlapSeconds: 3600,
    });
    expect(rotated.body.endpoint.activeSecrets).toBe(2);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect((await api('GET', '/v1/endpoints/ep_unknown')).status).toBe(404);

    const listed = await berth('endpoints', 'list', '--workspace', 'ws_api', '--json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ id, activeSecrets: 2, rateLimitPerSecond: 50 })]);
    expect((await berth('endpoints', 'disable', id)).code).toBe(0);
    expect((await api<EndpointView>('GET', `/v1/endpoints/${id}`)).body.enabled).toBe(false);
    expect((await berth('endpoints', 'enable', id)).code).toBe(0);
    expect((await berth('endpoints', 'update', id)).code).toBe(2);
  });

  it('lists the delivery log, replays a delivery with the same webhook-id, and recovers failed deliveries since a time', async () => {
    const created = await berth('endpoints', 'create', '--workspace', 'ws_log', '--url', receiver.url, '--json');
    expect(created.code).toBe(0);
    const endpointId = (JSON.parse(created.out) as { id: string }).id;
    await waitFor(async () => running.dispatcher.endpoints.get(endpointId), {
      what: 'the dispatcher to know the endpoint',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: Boolean,
    });
    const send = createOutboundSender({ js: servers.product.js });

    await send('ws_log', 'invoice.paid', { n: 1 }, { idempotencyKey: newKey() });
    const [delivered] = await waitFor(() => deliveriesOf(endpointId), {
      what: 'a delivered delivery',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (rows) => rows[0]?.status === 'delivered',
    });
    expect(delivered.log[0]).toMatchObject({
      kind: 'attempt',
      outcome: 'delivered',
      statusCode: 200,
      responseBody: 'ok',
    });

    const before = receiver.requestsOf(delivered.id).length;
    expect((await berth('deliveries', 'replay', delivered.id)).code).toBe(0);
    await receiver.waitUntil(() => receiver.requestsOf(delivered.id).length === before + 1, 10_000, 'the replay');

    const since = new Date().toISOString();
    failing = true;
    await send('ws_log', 'invoice.paid', { n: 2 }, { idempotencyKey: newKey() });
    await send('ws_log', 'invoice.paid', { n: 3 }, { idempotencyKey: newKey() });
    await waitFor(() => deliveriesOf(endpointId), {
      what: 'two failed deliveries',
      timeoutMs: 15_000,
      intervalMs: 100,
      until: (rows) => rows.filter((row) => row.status === 'failed').length === 2,
    });
    const listed = await berth('deliveries', 'list', '--endpoint', endpointId, '--status', 'failed');
    expect(listed.out).toContain('500');

    failing = false;
    const recovered = await api<{ replayed: number }>('POST', `/v1/endpoints/${endpointId}/recover`, { since });
    expect(recovered).toEqual({ status: 202, body: expect.objectContaining({ replayed: 2 }) });
    const rows = await waitFor(() => deliveriesOf(endpointId), {
      what: 'every delivery delivered',
      timeoutMs: 15_000,
      intervalMs: 100,
      until: (found) => found.every((row) => row.status === 'delivered'),
    });
    expect(rows.map((row) => row.attemptCount).sort()).toEqual([2, 4, 4]);
    expect((await berth('deliveries', 'recover', endpointId, '--since', since)).out).toContain('0 deliveries');

    const metrics = await (await fetch(`http://127.0.0.1:${running.port}/metrics`)).text();
    expect(sampleValue(metrics, 'webhook_outbound_backlog', { endpoint: endpointId })).toBe(0);
    expect(sampleValue(metrics, 'webhook_outbound_total', { outcome: 'retry' })).toBe(6);
    expect(sampleValue(metrics, 'webhook_outbound_deliveries_total', { status: 'failed' })).toBe(2);
  });

  it('deletes an endpoint: its consumer and the retries still queued for it are gone', async () => {
    const busy = await new WebhookReceiver([], () => ({ status: 429, headers: { 'retry-after': '60' } })).start();
    try {
      const created = await api<{ endpoint: EndpointView }>('POST', '/v1/endpoints', {
        workspaceId: 'ws_delete',
        url: busy.url,
      });
      const id = created.body.endpoint.id;
      await createOutboundSender({ js: servers.product.js })(
        'ws_delete',
        'invoice.paid',
        {},
        { idempotencyKey: newKey() },
      );
      await waitFor(() => deliveriesOf(id), {
        what: 'the first attempt logged, its retry queued',
        timeoutMs: 10_000,
        intervalMs: 100,
        until: (rows) => rows[0]?.log.length === 1,
      });
      const queued = () =>
        servers.messaging.jsm.streams
          .info(OUTBOUND_DELIVERIES_STREAM, { subjects_filter: `outbound.*.${id}.>` })
          .then((info) => Object.keys(info.state.subjects ?? {}).length);
      expect(await queued()).toBe(1);

      expect(
        (
          await fetch(`http://127.0.0.1:${running.port}/v1/endpoints/${id}`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${TOKEN}` },
          })
        ).status,
      ).toBe(204);
      await waitFor(queued, {
        what: 'the queued retry purged',
        timeoutMs: 10_000,
        intervalMs: 100,
        until: (count) => count === 0,
      });
      await expect(
        servers.messaging.jsm.consumers.info(OUTBOUND_DELIVERIES_STREAM, endpointConsumerName(id)),
      ).rejects.toThrow(/not found/i);
      expect((await api('GET', `/v1/endpoints/${id}`)).status).toBe(404);
      expect(busy.requests).toHaveLength(1);
    } finally {
      await busy.stop();
    }
  });
});
