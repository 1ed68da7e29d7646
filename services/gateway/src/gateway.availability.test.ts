import { ManualClock } from '@berth/contract/testing';
import { readFile } from 'node:fs/promises';
import Stripe from 'stripe';
import { waitFor } from '@berth/local-infra/testing';
import { defaultToolsBinDir } from '@berth/local-infra';
import {
  inboundCount,
  startGateway,
  startNatsFixture,
  uniqueId,
  unixSeconds,
  STREAM,
  type NatsFixture,
  type TestGateway,
} from './test-harness';

const natsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

const stripe = new Stripe('sk_test_unused_by_these_tests');
const SECRET = 'whsec_availability';

/** A fresh signed Stripe event request. */
function signedEvent(type = 'invoice.paid', timestamp?: number): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ id: uniqueId('evt'), object: 'event', type, created: unixSeconds() });
  return {
    body,
    headers: {
      'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp }),
    },
  };
}

async function postEvent(
  gateway: TestGateway,
  type?: string,
): Promise<{ status: number; ms: number; response: Response }> {
  const { body, headers } = signedEvent(type);
  const startedAt = performance.now();
  const response = await gateway.post('stripe', body, headers);
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - startedAt, response };
}

/** The scheduler state of a process (`R`, `S`, `T` for stopped...), from `/proc/<pid>/stat`. */
async function processState(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}

/** Resolves on the next connection status of `type` (e.g. `reconnect`). */
async function nextStatus(nats: NatsFixture, type: string): Promise<void> {
  for await (const status of nats.messaging.nc.status()) if (status.type === type) return;
}

describe('gateway: rate limit, JetStream outages and metrics', () => {
  let nats: NatsFixture;
  let gateway: TestGateway;

  beforeAll(async () => {
    nats = await startNatsFixture(natsBinDir);
    gateway = await startGateway(nats, {
      env: { STRIPE_WEBHOOK_SECRET: SECRET, WEBHOOK_RATE_LIMIT_PER_MINUTE: '1000' },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await nats?.close();
  });

  it('answers 429 with Retry-After past the per-minute limit, counting rejected requests too, per provider', async () => {
    const clock = new ManualClock('2030-01-01T00:00:00Z');
    const limited = await startGateway(nats, {
      env: { STRIPE_WEBHOOK_SECRET: SECRET, WEBHOOK_RATE_LIMIT_PER_MINUTE: '3' },
      clock,
    });
    try {
      const at = (date: Date) => unixSeconds(Math.round((date.getTime() - Date.now()) / 1000));
      const send = async (options: { signed?: boolean } = {}) => {
        const { body, headers } = signedEvent('invoice.paid', at(clock.now()));
        return limited.post('stripe', body, options.signed === false ? {} : headers);
      };
      expect((await send({ signed: false })).status).toBe(400); // unsigned: counted too
      for (let i = 0; i < 2; i += 1) expect((await send()).status).toBe(200);
      clock.advance(20_000);
      const refused = await send();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('40');
      expect(await refused.json()).toEqual({ error: 'rate_limited' });

      clock.advance(40_000);
      expect((await send()).status).toBe(200);
      expect(inboundCount(await limited.metrics.render(), 'stripe', 'rate_limited')).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('answers 503 within 2 s while nats-server is down, is not ready, and takes events again after a restart', async () => {
    expect((await postEvent(gateway)).status).toBe(200);

    const disconnected = nextStatus(nats, 'disconnect');
    await nats.server.kill();
    await disconnected;
    const down = await postEvent(gateway);
    expect(down.status).toBe(503);
    expect(down.ms).toBeLessThan(2000);
    expect(down.response.headers.get('retry-after')).toBe('5');
    expect((await fetch(`${gateway.healthUrl}/readyz`)).status).toBe(503);
    expect((await fetch(`${gateway.baseUrl}/healthz`)).status).toBe(200);

    const reconnected = nextStatus(nats, 'reconnect');
    await nats.server.restart();
    await reconnected;
    expect((await postEvent(gateway)).status).toBe(200);
    expect((await fetch(`${gateway.healthUrl}/readyz`)).status).toBe(200);
  });

  it('answers 503 within 2 s when nats-server hangs (the client has not noticed: the publish timeout bounds the wait)', async () => {
    const pid = nats.server.process.child.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      // The stop is asynchronous: every thread of the server must have stopped before the request is sent.
      await waitFor(() => processState(pid), {
        what: `nats-server ${pid} to be stopped`,
        until: (state) => state === 'T',
      });
      const hung = await postEvent(gateway);
      expect({ status: hung.status, state: await processState(pid) }).toEqual({ status: 503, state: 'T' });
      expect(hung.ms).toBeGreaterThanOrEqual(gateway.config.publishTimeoutMs - 50);
      expect(hung.ms).toBeLessThan(2000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect((await postEvent(gateway)).status).toBe(200);
  });

  it('answers 503 when the stream is full (discard new), and 200 once there is room', async () => {
    const { config } = await nats.messaging.jsm.streams.info(STREAM);
    const stored = (await nats.messaging.jsm.streams.info(STREAM)).state.messages;
    await nats.messaging.jsm.streams.update(STREAM, { ...config, max_msgs: stored });
    try {
      expect((await postEvent(gateway)).status).toBe(503);
    } finally {
      await nats.messaging.jsm.streams.update(STREAM, { ...config, max_msgs: -1 });
    }
    expect((await postEvent(gateway)).status).toBe(200);
  });

  it('counts each outcome in webhook_inbound_total and times publishes', async () => {
    const fresh = await startGateway(nats, { env: { STRIPE_WEBHOOK_SECRET: SECRET } });
    try {
      const accepted = signedEvent('customer.updated');
      await fresh.post('stripe', accepted.body, accepted.headers);
      await fresh.post('stripe', accepted.body, accepted.headers);
      await postEvent(fresh);
      await postEvent(fresh, 'balance.available');
      await fresh.post('stripe', accepted.body, {});
      await fresh.post('stripe', Buffer.alloc(2 * 1024 * 1024), accepted.headers);
      await fresh.post('clerk', '{}');
      await fresh.post('elsewhere', '{}');

      const text = await (await fetch(`${fresh.healthUrl}/metrics`)).text();
      expect(inboundCount(text, 'stripe', 'accepted')).toBe(2);
      expect(inboundCount(text, 'stripe', 'duplicate')).toBe(1);
      expect(inboundCount(text, 'stripe', 'ignored')).toBe(1);
      expect(inboundCount(text, 'stripe', 'invalid_signature')).toBe(1);
      expect(inboundCount(text, 'stripe', 'too_large')).toBe(1);
      expect(inboundCount(text, 'stripe', 'unavailable')).toBe(0);
      expect(inboundCount(text, 'clerk', 'not_found')).toBe(1);
      expect(inboundCount(text, 'unknown', 'not_found')).toBe(1);
      expect(text).toContain('webhook_publish_duration_seconds_count{provider="stripe"} 3');
    } finally {
      await fresh.close();
    }
  });
});
