import Stripe from 'stripe';
import { STRIPE_HANDLED_EVENT_TYPES } from '@berth/webhooks';
import { defaultToolsBinDir } from '@berth/local-infra';
import {
  inboundCount,
  startGateway,
  startNatsFixture,
  uniqueId,
  unixSeconds,
  type NatsFixture,
  type TestGateway,
} from './test-harness';

const natsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

const stripe = new Stripe('sk_test_unused_by_these_tests');
const SECRET = 'whsec_test_current';
const OLD_SECRET = 'whsec_test_previous';

function stripeEvent(type: string, id = uniqueId('evt')): { id: string; body: string } {
  const body = JSON.stringify({
    id,
    object: 'event',
    type,
    created: unixSeconds(),
    data: { object: { id: 'sub_123', customer: 'cus_123' } },
  });
  return { id, body };
}

function stripeSignature(body: string, options: { secret?: string; timestamp?: number } = {}): Record<string, string> {
  return {
    'stripe-signature': stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: options.secret ?? SECRET,
      timestamp: options.timestamp,
    }),
  };
}

describe('gateway: Stripe webhooks into JetStream', () => {
  let nats: NatsFixture;
  let gateway: TestGateway;

  beforeAll(async () => {
    nats = await startNatsFixture(natsBinDir);
    gateway = await startGateway(nats, { env: { STRIPE_WEBHOOK_SECRET: `${SECRET},${OLD_SECRET}` } });
  });
  afterAll(async () => {
    await gateway?.close();
    await nats?.close();
  });
  beforeEach(() => nats.purge());

  it('publishes a signed event to webhooks.stripe.<type> with its msg id, Berth headers and the exact bytes', async () => {
    const { id, body } = stripeEvent('customer.subscription.updated');
    const signed = stripeSignature(body);
    const response = await gateway.post('stripe', body, {
      ...signed,
      Cookie: 'session=secret',
      Authorization: 'Bearer x',
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    const stored = await nats.lastMessage('webhooks.stripe.customer.subscription.updated');
    expect(stored.header.get('Nats-Msg-Id')).toBe(`stripe:${id}`);
    expect(stored.header.get('Berth-Provider')).toBe('stripe');
    expect(stored.header.get('Berth-Event-Id')).toBe(id);
    expect(stored.header.get('Berth-Event-Type')).toBe('customer.subscription.updated');
    expect(new Date(stored.header.get('Berth-Received-At')).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(Buffer.from(stored.data).equals(Buffer.from(body))).toBe(true);
    // The provider's signed header, kept for the handler; nothing else of the request (no cookie, no authorization).
    const kept = stored.header.keys().filter((key) => key.toLowerCase().startsWith('berth-header-'));
    expect(kept.map((key) => [key.toLowerCase(), stored.header.get(key)])).toEqual([
      [
        'berth-header-stripe-signature',
        Object.entries(signed).find(([name]) => name.toLowerCase() === 'stripe-signature')![1],
      ],
    ]);
    expect(await nats.messageCount()).toBe(1);
  });

  it('accepts every handled Stripe type', async () => {
    for (const type of STRIPE_HANDLED_EVENT_TYPES) {
      const { body } = stripeEvent(type);
      expect((await gateway.post('stripe', body, stripeSignature(body))).status).toBe(200);
    }
    expect(await nats.messageCount()).toBe(STRIPE_HANDLED_EVENT_TYPES.length);
  });

  it('accepts a request signed with the second secret during a rotation', async () => {
    const { body } = stripeEvent('invoice.paid');
    expect((await gateway.post('stripe', body, stripeSignature(body, { secret: OLD_SECRET }))).status).toBe(200);
    expect(await nats.messageCount()).toBe(1);
  });

  describe('rejects with 400 and publishes nothing', () => {
    const cases: Array<[string, () => { body: string; headers: Record<string, string> }, string]> = [
      [
        'a tampered body',
        () => {
          const { body } = stripeEvent('invoice.paid');
          return { body: body.replace('cus_123', 'cus_999'), headers: stripeSignature(body) };
        },
        'bad_signature',
      ],
      [
        'a timestamp 6 minutes old',
        () => {
          const { body } = stripeEvent('invoice.paid');
          return { body, headers: stripeSignature(body, { timestamp: unixSeconds(-360) }) };
        },
        'timestamp_out_of_tolerance',
      ],
      [
        'a timestamp 6 minutes ahead',
        () => {
          const { body } = stripeEvent('invoice.paid');
          return { body, headers: stripeSignature(body, { timestamp: unixSeconds(360) }) };
        },
        'timestamp_out_of_tolerance',
      ],
      ['no Stripe-Signature header', () => ({ body: stripeEvent('invoice.paid').body, headers: {} }), 'missing_header'],
      [
        'a signature made with another secret',
        () => {
          const { body } = stripeEvent('invoice.paid');
          return { body, headers: stripeSignature(body, { secret: 'whsec_somebody_else' }) };
        },
        'bad_signature',
      ],
    ];
    it.each(cases)('%s', async (_name, build, reason) => {
      const { body, headers } = build();
      const response = await gateway.post('stripe', body, headers);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'invalid_signature', reason });
      expect(await nats.messageCount()).toBe(0);
    });
  });

  it('answers 200 ignored to a type it does not handle, and publishes nothing', async () => {
    const { body } = stripeEvent('payment_intent.created');
    const response = await gateway.post('stripe', body, stripeSignature(body));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, ignored: true });
    expect(await nats.messageCount()).toBe(0);
  });

  it('stores one message for an event delivered 10 times, 5 of them at once, answering 200 each time', async () => {
    const { id, body } = stripeEvent('customer.updated');
    const send = () => gateway.post('stripe', body, stripeSignature(body));
    const concurrent = await Promise.all(Array.from({ length: 5 }, send));
    const sequential: Response[] = [];
    for (let i = 0; i < 5; i += 1) sequential.push(await send());

    expect([...concurrent, ...sequential].map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await nats.messageCount()).toBe(1);
    expect((await nats.lastMessage('webhooks.stripe.customer.updated')).header.get('Nats-Msg-Id')).toBe(`stripe:${id}`);
  });

  it('answers 413 to a body of 1 MiB + 1 byte, streamed or announced', async () => {
    const tooBig = Buffer.alloc(1024 * 1024 + 1, 0x20);
    const announced = await gateway.post('stripe', tooBig, stripeSignature('irrelevant'));
    expect(announced.status).toBe(413);
    expect(await announced.json()).toEqual({ error: 'too_large' });

    // Without Content-Length (chunked), the limit is enforced while reading.
    const chunks = [tooBig.subarray(0, 600_000), tooBig.subarray(600_000)];
    const streamed = await fetch(`${gateway.baseUrl}/webhooks/stripe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...stripeSignature('irrelevant') },
      body: new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new Uint8Array(chunk));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await nats.messageCount()).toBe(0);
  });

  it('accepts a signed event of exactly 1 MiB', async () => {
    const { body } = stripeEvent('invoice.paid');
    const padded = body.padEnd(1024 * 1024, ' '); // trailing whitespace keeps it valid JSON
    expect((await gateway.post('stripe', padded, stripeSignature(padded))).status).toBe(200);
    expect((await nats.lastMessage('webhooks.stripe.invoice.paid')).data.length).toBe(1024 * 1024);
  });

  it('answers 404 to a provider that is switched off or unknown', async () => {
    const { body } = stripeEvent('invoice.paid');
    expect((await gateway.post('clerk', body, stripeSignature(body))).status).toBe(404);
    expect((await gateway.post('nope', body, stripeSignature(body))).status).toBe(404);
  });

  it('serves /healthz, /readyz and /metrics on the health port', async () => {
    expect((await fetch(`${gateway.healthUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${gateway.healthUrl}/readyz`)).status).toBe(200);
    const metrics = await fetch(`${gateway.healthUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('webhook_publish_duration_seconds_bucket');
  });
});

describe('gateway: Stripe switched off', () => {
  let nats: NatsFixture;
  afterAll(async () => {
    await nats?.close();
  });

  it('answers 404 when BILLING_PROVIDER=none or no secret is set', async () => {
    nats = await startNatsFixture(natsBinDir);
    const { body } = stripeEvent('invoice.paid');
    for (const env of [{ BILLING_PROVIDER: 'none', STRIPE_WEBHOOK_SECRET: SECRET }, {}]) {
      const gateway = await startGateway(nats, { env });
      try {
        const response = await gateway.post('stripe', body, stripeSignature(body));
        expect(response.status).toBe(404);
        expect(inboundCount(await gateway.metrics.render(), 'stripe', 'not_found')).toBe(1);
      } finally {
        await gateway.close();
      }
    }
    expect(await nats.messageCount()).toBe(0);
  });
});
