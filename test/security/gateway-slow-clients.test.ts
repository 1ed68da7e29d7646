/**
 * Issue 12, item 3: slow clients must not exhaust the gateway before any signature check. Against the real gateway
 * process on real nats-server: bodies trickled one byte at a time cost bounded memory, a client IP holds a bounded
 * number of bodies open at once, and neither a body nor a request head may take longer than its deadline.
 */
import Stripe from 'stripe';
import { paceSlowClient, waitFor } from '@berth/local-infra/testing';
import {
  nextTurn,
  postHead,
  rawClient,
  startGatewayProcess,
  type GatewayProcess,
  type RawClient,
} from './gateway-process';

const SECRET = 'whsec_slow_clients_test_secret';
const ANNOUNCED = 1024 * 1024;
const TRICKLED_BYTES = Number(process.env.TRICKLE_BYTES ?? 200_000);

function signedStripeEvent(id: string): { body: string; signature: string } {
  const body = JSON.stringify({
    id,
    object: 'event',
    type: 'invoice.paid',
    data: { object: { id: 'in_1', customer: 'cus_1' } },
  });
  return {
    body,
    signature: new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload: body, secret: SECRET }),
  };
}

async function postSigned(gateway: GatewayProcess, id: string): Promise<number> {
  const { body, signature } = signedStripeEvent(id);
  const response = await fetch(`${gateway.baseUrl}/webhooks/stripe`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
  });
  await response.text();
  return response.status;
}

describe('gateway under slow clients', () => {
  describe('memory and per-IP bodies', () => {
    let gateway: GatewayProcess;
    beforeAll(async () => {
      gateway = await startGatewayProcess({
        STRIPE_WEBHOOK_SECRET: SECRET,
        WEBHOOK_MAX_BODIES_PER_IP: '4',
        WEBHOOK_BODY_TIMEOUT_MS: '60000',
      });
    });
    afterAll(async () => {
      await gateway?.stop();
    });

    it('holds 8 bodies of Content-Length 1 MiB trickled one byte at a time in bounded memory, and refuses those past 4 per IP', async () => {
      for (let i = 0; i < 20; i += 1) expect(await postSigned(gateway, `evt_warm_${i}`)).toBe(200);
      const rssBefore = gateway.rssBytes();

      const clients: RawClient[] = [];
      for (let i = 0; i < 8; i += 1) {
        const client = await rawClient(gateway.port);
        client.socket.write(postHead('stripe', ANNOUNCED, { 'stripe-signature': 't=1,v1=00' }));
        clients.push(client);
        await paceSlowClient(20, 'the slow clients connect one after another');
      }
      const one = Buffer.from('x');
      for (let sent = 0; sent < TRICKLED_BYTES; sent += 1) {
        for (const client of clients) if (client.socket.writable) client.socket.write(one);
        await nextTurn();
      }
      await paceSlowClient(500, 'the slow clients fall silent before the memory is read');
      const rssAfter = gateway.rssBytes();
      process.stdout.write(
        `slow-clients RSS: before ${(rssBefore / 2 ** 20).toFixed(1)} MiB, after 8 x ${TRICKLED_BYTES} trickled bytes ${(rssAfter / 2 ** 20).toFixed(1)} MiB\n`,
      );

      const refused = clients.filter((client) => /^HTTP\/1\.1 429 /.test(client.received()));
      const stillOpen = clients.filter((client) => client.received() === '');
      expect(refused).toHaveLength(4);
      expect(stillOpen).toHaveLength(4);
      expect(rssAfter - rssBefore).toBeLessThan(24 * 2 ** 20);

      // The slots come back as the gateway sees the connections close.
      for (const client of clients) client.socket.destroy();
      await Promise.all(clients.map((client) => client.closed));
      let attempt = 0;
      const status = await waitFor(() => postSigned(gateway, `evt_after_slow_${attempt++}`), {
        what: 'a signed request accepted once the slow connections closed',
        intervalMs: 100,
        timeoutMs: 10_000,
        until: (answered) => answered === 200,
      });
      expect(status).toBe(200);
    });
  });

  describe('deadlines', () => {
    let gateway: GatewayProcess;
    beforeAll(async () => {
      gateway = await startGatewayProcess({
        STRIPE_WEBHOOK_SECRET: SECRET,
        WEBHOOK_BODY_TIMEOUT_MS: '1500',
        HTTP_HEADERS_TIMEOUT_MS: '1000',
      });
    });
    afterAll(async () => {
      await gateway?.stop();
    });

    it('answers 408 and closes the connection when a body is not complete within WEBHOOK_BODY_TIMEOUT_MS', async () => {
      const client = await rawClient(gateway.port);
      const startedAt = Date.now();
      client.socket.write(`${postHead('stripe', 1000, { 'stripe-signature': 't=1,v1=00' })}{"id":`);
      // Silent for the last 400 ms: bytes unread at close would make the kernel reset the connection, 408 unread.
      const trickle = setInterval(() => client.socket.writable && client.socket.write('1'), 100);
      const silence = setTimeout(() => clearInterval(trickle), 1100);
      const { text, at } = await client.closed;
      clearInterval(trickle);
      clearTimeout(silence);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(at - startedAt).toBeGreaterThanOrEqual(1400);
      expect(at - startedAt).toBeLessThan(4000);
    });

    it('closes a connection whose request head is not complete within HTTP_HEADERS_TIMEOUT_MS', async () => {
      const client = await rawClient(gateway.port);
      const startedAt = Date.now();
      client.socket.write('POST /webhooks/stripe HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const trickle = setInterval(() => client.socket.writable && client.socket.write('X-Pad: 1\r\n'), 100);
      const { at } = await client.closed;
      clearInterval(trickle);
      expect(at - startedAt).toBeLessThan(3500);
    });

    it('still serves signed requests afterwards', async () => {
      expect(await postSigned(gateway, 'evt_after_deadlines')).toBe(200);
    });
  });
});
