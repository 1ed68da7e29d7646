import { ManualClock } from '@berth/contract/testing';
import { Webhook } from 'standardwebhooks';
import { createAddressPolicy } from './address-policy';
import { REFUSED_ADDRESSES } from './test-support/address-cases';
import { deliverWebhook } from './deliver-webhook';
import type { DeliveryRequest } from './delivery-types';
import type { ResolveHost } from './resolve-host';
import { generateWebhookSecret } from './sign-webhook';
import { startReceiver, type Receiver } from './test-support/receiver';
import { TEST_TLS_CERT, TEST_TLS_HOST, TEST_TLS_KEY } from './test-support/tls-fixture';

// The loopback receivers listen on random ports, which the default policy (80 and 443 only) refuses.
const loopback = createAddressPolicy({ allowPrivateNetworks: ['127.0.0.0/8'], allowedPorts: ['1-65535'] });
const strict = createAddressPolicy();
const secret = generateWebhookSecret();
const payload = '{"type":"invoice.paid","data":{"id":"in_1"}}';
const receivers: Receiver[] = [];

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((started) => started.close()));
});

function message(url: string, overrides: Partial<DeliveryRequest> = {}): DeliveryRequest {
  return { url, messageId: 'msg_2Kq', timestamp: new Date(), payload, secrets: [secret], ...overrides };
}

function resolvingTo(...addresses: string[]): ResolveHost & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(
    async (hostname: string) => {
      calls.push(hostname);
      return addresses;
    },
    { calls },
  );
}

describe('deliverWebhook', () => {
  it('POSTs the exact payload with Standard Webhooks headers, verifiable with either secret of a rotation', async () => {
    const endpoint = await receiver();
    const newSecret = generateWebhookSecret();
    const attempt = await deliverWebhook(
      message(`${endpoint.url}/hooks?x=1`, { secrets: [secret, newSecret], headers: { 'X-Tenant': 'ws_1' } }),
      { policy: loopback },
    );
    expect(attempt).toMatchObject({
      outcome: 'delivered',
      statusCode: 200,
      responseBody: '{"ok":true}',
      address: '127.0.0.1',
    });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    const received = endpoint.requests[0]!;
    expect(received).toMatchObject({ method: 'POST', url: '/hooks?x=1', body: payload });
    expect(received.headers).toMatchObject({
      'webhook-id': 'msg_2Kq',
      'content-type': 'application/json',
      'user-agent': 'Berth-Webhooks/0.1',
      'x-tenant': 'ws_1',
    });
    expect(received.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    const headers = received.headers as Record<string, string>;
    expect(new Webhook(secret).verify(received.body, headers)).toEqual(JSON.parse(payload));
    expect(new Webhook(newSecret).verify(received.body, headers)).toEqual(JSON.parse(payload));
  });

  it('refuses a port the policy does not allow (80 and 443 by default), sending nothing', async () => {
    const endpoint = await receiver();
    const defaultPorts = createAddressPolicy({ allowPrivateNetworks: ['127.0.0.0/8'] });
    const attempt = await deliverWebhook(message(`${endpoint.url}/in`), { policy: defaultPorts });
    expect(attempt).toMatchObject({
      outcome: 'refused',
      address: '127.0.0.1',
      error: expect.stringContaining(`port ${endpoint.port}`),
    });
    const byName = await deliverWebhook(message(`http://hooks.customer.example:${endpoint.port}/in`), {
      policy: defaultPorts,
      resolve: resolvingTo('127.0.0.1'),
    });
    expect(byName).toMatchObject({ outcome: 'refused', error: expect.stringContaining(`port ${endpoint.port}`) });
    expect(endpoint.requests).toHaveLength(0);
  });

  it('refuses loopback by default, sending nothing', async () => {
    const endpoint = await receiver();
    const attempt = await deliverWebhook(message(endpoint.url), { policy: strict });
    expect(attempt).toMatchObject({
      outcome: 'refused',
      address: '127.0.0.1',
      error: expect.stringContaining('loopback'),
    });
    expect(attempt.statusCode).toBeUndefined();
    const byName = await deliverWebhook(message(`http://localhost:${endpoint.port}/`), { policy: strict });
    expect(byName).toMatchObject({ outcome: 'refused', error: expect.stringContaining('loopback') });
    expect(endpoint.requests).toHaveLength(0);
  });

  it.each(REFUSED_ADDRESSES)('refuses the literal %s (%s)', async (ip, addressClass) => {
    const host = ip.includes(':') ? `[${ip.replace('%', '%25')}]` : ip;
    const literal = await deliverWebhook(message(`http://${host}/`), { policy: strict, resolve: resolvingTo() });
    // The URL parser drops zones and re-spells some IPv6 forms; the class is what matters.
    expect(literal).toMatchObject(
      ip.includes('%') ? { outcome: 'refused' } : { outcome: 'refused', error: expect.stringContaining(addressClass) },
    );
  });

  it.each(REFUSED_ADDRESSES)('refuses a host name resolving to %s (%s)', async (ip, addressClass) => {
    const resolve = resolvingTo(ip);
    const attempt = await deliverWebhook(message('https://hooks.customer.example/in'), { policy: strict, resolve });
    expect(attempt).toMatchObject({ outcome: 'refused', address: ip, error: expect.stringContaining(addressClass) });
    expect(resolve.calls).toEqual(['hooks.customer.example']);
  });

  it.each([
    ['10.0.0.1', '93.184.216.34'],
    ['93.184.216.34', '10.0.0.1'],
    ['2606:4700::1111', '::ffff:169.254.169.254'],
  ])('refuses a host name resolving to %s and %s, whichever comes first', async (...addresses) => {
    const attempt = await deliverWebhook(message('https://mixed.example/'), {
      policy: strict,
      resolve: resolvingTo(...addresses),
    });
    expect(attempt.outcome).toBe('refused');
  });

  it('resolves once and connects to the checked address, keeping the host name in Host', async () => {
    const endpoint = await receiver();
    let calls = 0;
    const rebinding: ResolveHost = async () => (++calls === 1 ? ['127.0.0.1'] : ['169.254.169.254']);
    const attempt = await deliverWebhook(message(`http://hooks.customer.test:${endpoint.port}/in`), {
      policy: loopback,
      resolve: rebinding,
    });
    expect(attempt).toMatchObject({ outcome: 'delivered', address: '127.0.0.1' });
    expect(calls).toBe(1);
    expect(endpoint.requests[0]!.headers.host).toBe(`hooks.customer.test:${endpoint.port}`);
  });

  it("verifies an https endpoint's certificate against the URL's host name, though it connects to the checked address", async () => {
    const endpoint = await receiver(undefined, { tls: { cert: TEST_TLS_CERT, key: TEST_TLS_KEY } });
    const toLoopback = { policy: loopback, resolve: resolvingTo('127.0.0.1'), ca: TEST_TLS_CERT };
    const attempt = await deliverWebhook(message(`https://${TEST_TLS_HOST}:${endpoint.port}/in`), toLoopback);
    expect(attempt).toMatchObject({ outcome: 'delivered', statusCode: 200, address: '127.0.0.1' });
    expect(endpoint.requests[0]!.headers.host).toBe(`${TEST_TLS_HOST}:${endpoint.port}`);
    const otherName = await deliverWebhook(message(`https://other.customer.test:${endpoint.port}/in`), toLoopback);
    expect(otherName).toMatchObject({
      outcome: 'retry',
      error: expect.stringContaining('ERR_TLS_CERT_ALTNAME_INVALID'),
    });
    const untrusted = await deliverWebhook(message(`https://${TEST_TLS_HOST}:${endpoint.port}/in`), {
      ...toLoopback,
      ca: undefined,
    });
    expect(untrusted).toMatchObject({ outcome: 'retry', error: expect.stringMatching(/self[- ]signed/i) });
    expect(endpoint.requests).toHaveLength(1);
  });

  it.each([
    'not a url',
    'ftp://files.example/x',
    'file:///etc/passwd',
    'http://user:pass@hooks.example/',
    'http://:token@hooks.example/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://127.1:8080/',
  ])('refuses %j without sending', async (url) => {
    const resolve = resolvingTo('93.184.216.34');
    expect(await deliverWebhook(message(url), { policy: strict, resolve })).toMatchObject({ outcome: 'refused' });
    expect(resolve.calls).toEqual([]);
  });

  it('does not follow a redirect, even to an allowed receiver', async () => {
    const target = await receiver();
    const redirecting = await receiver((_request, response) =>
      response.writeHead(302, { location: `${target.url}/stolen` }).end(),
    );
    const attempt = await deliverWebhook(message(redirecting.url), { policy: loopback });
    expect(attempt).toMatchObject({
      outcome: 'retry',
      statusCode: 302,
      error: expect.stringContaining(`redirect to ${target.url}/stolen not followed`),
    });
    expect(redirecting.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('gives up on a slow receiver at the deadline', async () => {
    const slow = await receiver(() => undefined);
    const attempt = await deliverWebhook(message(slow.url), { policy: loopback, timeoutMs: 200 });
    expect(attempt).toMatchObject({ outcome: 'retry', error: 'timed out after 200 ms' });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(195);
    expect(attempt.durationMs).toBeLessThan(2_000);
    expect(slow.requests).toHaveLength(1);
  });

  it('times out a resolver that never answers', async () => {
    const attempt = await deliverWebhook(message('https://hang.example/'), {
      policy: strict,
      timeoutMs: 50,
      resolve: () => new Promise(() => undefined),
    });
    expect(attempt).toMatchObject({ outcome: 'retry', error: expect.stringContaining('timed out after 50 ms') });
  });

  it('keeps the status of a receiver that answers but trickles its body past the deadline', async () => {
    const trickling = await receiver((_request, response) => response.writeHead(200).write('partial'));
    const attempt = await deliverWebhook(message(trickling.url), { policy: loopback, timeoutMs: 200 });
    expect(attempt).toMatchObject({ outcome: 'delivered', statusCode: 200, responseBody: 'partial' });
  });

  it('reads at most 4 KiB of the response body', async () => {
    const chatty = await receiver((_request, response) => response.writeHead(500).end('x'.repeat(256 * 1024)));
    const attempt = await deliverWebhook(message(chatty.url), { policy: loopback });
    expect(attempt).toMatchObject({ outcome: 'retry', statusCode: 500, error: 'HTTP 500' });
    expect(attempt.responseBody).toBe('x'.repeat(4096));
    const small = await deliverWebhook(message(chatty.url), { policy: loopback, maxResponseBytes: 10 });
    expect(small.responseBody).toBe('x'.repeat(10));
  });

  it('reads Retry-After on 429 and 503 only', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const busy = await receiver((request, response) => {
      const status = Number(request.url.slice(1));
      response.writeHead(status, { 'retry-after': status === 503 ? 'Tue, 01 Jan 2030 00:01:00 GMT' : '7' }).end();
    });
    const at = (status: number) =>
      deliverWebhook(message(`${busy.url}/${status}`), { policy: loopback, clock: new ManualClock(now) });
    expect(await at(429)).toMatchObject({ outcome: 'retry', statusCode: 429, retryAfterMs: 7_000, startedAt: now });
    expect(await at(503)).toMatchObject({ outcome: 'retry', statusCode: 503, retryAfterMs: 60_000 });
    expect((await at(500)).retryAfterMs).toBeUndefined();
  });

  it.each([
    [201, 'delivered'],
    [204, 'delivered'],
    [410, 'gone'],
    [400, 'retry'],
    [404, 'retry'],
    [301, 'retry'],
    [304, 'retry'],
    [502, 'retry'],
  ] as const)('answers %d → %s', async (status, outcome) => {
    const endpoint = await receiver((_request, response) => response.writeHead(status).end());
    expect(await deliverWebhook(message(endpoint.url), { policy: loopback })).toMatchObject({
      outcome,
      statusCode: status,
    });
  });

  it('retries when nothing listens, or the name does not resolve', async () => {
    const gone = await startReceiver();
    await gone.close();
    expect(await deliverWebhook(message(gone.url), { policy: loopback })).toMatchObject({
      outcome: 'retry',
      address: '127.0.0.1',
      error: expect.stringContaining('ECONNREFUSED'),
    });
    const failing: ResolveHost = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    expect(
      await deliverWebhook(message('https://nowhere.invalid/'), { policy: strict, resolve: failing }),
    ).toMatchObject({ outcome: 'retry', error: expect.stringContaining('ENOTFOUND') });
    expect(
      await deliverWebhook(message('https://empty.example/'), { policy: strict, resolve: resolvingTo() }),
    ).toMatchObject({ outcome: 'retry' });
  });

  it('refuses a header value node will not send, and ignores extra headers that would reframe the request', async () => {
    const endpoint = await receiver();
    const injected = await deliverWebhook(message(endpoint.url, { headers: { 'x-note': 'a\r\nx-evil: 1' } }), {
      policy: loopback,
    });
    expect(injected).toMatchObject({ outcome: 'refused', error: expect.stringContaining('ERR_INVALID_CHAR') });
    const reframed = await deliverWebhook(
      message(endpoint.url, { headers: { Host: 'internal.admin', 'Content-Length': '1', 'Webhook-Id': 'forged' } }),
      { policy: loopback },
    );
    expect(reframed.outcome).toBe('delivered');
    expect(endpoint.requests).toHaveLength(1);
    expect(endpoint.requests[0]!.headers).toMatchObject({
      host: `127.0.0.1:${endpoint.port}`,
      'webhook-id': 'msg_2Kq',
    });
    expect(endpoint.requests[0]!.body).toBe(payload);
  });

  it('retries a connection reset before any answer', async () => {
    const rude = await receiver((_request, response) => response.socket?.destroy());
    expect(await deliverWebhook(message(rude.url), { policy: loopback })).toMatchObject({
      outcome: 'retry',
      error: expect.stringMatching(/socket hang up|ECONNRESET/),
    });
  });
});
