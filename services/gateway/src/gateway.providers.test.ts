import { Webhook as SvixWebhook } from 'svix';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { signHmacSha256 } from '@berth/webhooks';
import { defaultToolsBinDir } from '@berth/local-infra';
import {
  newSigningSecret,
  startGateway,
  startNatsFixture,
  uniqueId,
  unixSeconds,
  type NatsFixture,
  type TestGateway,
} from './test-harness';

const natsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

const CLERK_SECRET = newSigningSecret();
const CLERK_OLD_SECRET = newSigningSecret();
const BILLING_SECRET = newSigningSecret();
const HMAC_SECRET = 'hmac-shared-secret';

function svixHeaders(secret: string, msgId: string, body: string, signedAt = new Date()): Record<string, string> {
  return {
    'svix-id': msgId,
    'svix-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
    'svix-signature': new SvixWebhook(secret).sign(msgId, signedAt, body),
  };
}

function standardHeaders(secret: string, msgId: string, body: string, signedAt = new Date()): Record<string, string> {
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
    'webhook-signature': new StandardWebhook(secret).sign(msgId, signedAt, body),
  };
}

function clerkEvent(type: string): string {
  return JSON.stringify({
    type,
    object: 'event',
    timestamp: Date.now(),
    data: { id: uniqueId('user'), updated_at: Date.now() },
  });
}

const PROVIDERS = [
  { name: 'billing', scheme: 'standard-webhooks', secrets: [BILLING_SECRET], eventTypes: ['plan.changed'] },
  {
    name: 'bundler',
    scheme: 'standard-webhooks',
    secrets: [newSigningSecret(), BILLING_SECRET],
    batch: { eventsField: 'events' },
    idField: 'eventId',
    typeField: 'kind',
  },
  {
    name: 'legacy',
    scheme: 'hmac-sha256',
    secrets: [HMAC_SECRET],
    signatureHeader: 'X-Legacy-Signature',
    timestampHeader: 'X-Legacy-Time',
  },
];

describe('gateway: Clerk, Standard Webhooks and HMAC providers', () => {
  let nats: NatsFixture;
  let gateway: TestGateway;

  beforeAll(async () => {
    nats = await startNatsFixture(natsBinDir);
    gateway = await startGateway(nats, {
      env: {
        CLERK_WEBHOOK_SIGNING_SECRET: `${CLERK_SECRET},${CLERK_OLD_SECRET}`,
        WEBHOOK_PROVIDERS: JSON.stringify(PROVIDERS),
      },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await nats?.close();
  });
  beforeEach(() => nats.purge());

  describe('Clerk (Svix signatures)', () => {
    it('publishes a signed event under the svix-id, which stays the same on every retry', async () => {
      const msgId = uniqueId('msg');
      const body = clerkEvent('organizationMembership.created');
      const first = await gateway.post('clerk', body, svixHeaders(CLERK_SECRET, msgId, body));
      // Svix's retry: same id and body, new timestamp and signature.
      const retry = await gateway.post(
        'clerk',
        body,
        svixHeaders(CLERK_SECRET, msgId, body, new Date(Date.now() + 30_000)),
      );

      expect([first.status, retry.status]).toEqual([200, 200]);
      expect(await nats.messageCount()).toBe(1);
      const stored = await nats.lastMessage('webhooks.clerk.organizationMembership.created');
      expect(stored.header.get('Nats-Msg-Id')).toBe(`clerk:${msgId}`);
      expect(stored.header.get('Berth-Event-Id')).toBe(msgId);
      expect(stored.header.get('Berth-Provider')).toBe('clerk');
      expect(Buffer.from(stored.data).toString()).toBe(body);
    });

    it('accepts the second secret, and rejects a wrong secret, stale or future timestamps and missing headers', async () => {
      const body = clerkEvent('user.updated');
      expect((await gateway.post('clerk', body, svixHeaders(CLERK_OLD_SECRET, uniqueId('msg'), body))).status).toBe(
        200,
      );
      await nats.purge();

      const rejected = [
        svixHeaders(newSigningSecret(), uniqueId('msg'), body),
        svixHeaders(CLERK_SECRET, uniqueId('msg'), body, new Date(Date.now() - 360_000)),
        svixHeaders(CLERK_SECRET, uniqueId('msg'), body, new Date(Date.now() + 360_000)),
        { 'svix-id': uniqueId('msg'), 'svix-timestamp': String(unixSeconds()) },
        { ...svixHeaders(CLERK_SECRET, uniqueId('msg'), body), 'svix-id': uniqueId('other') },
      ];
      for (const headers of rejected) {
        const response = await gateway.post('clerk', body, headers);
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: string }).error).toBe('invalid_signature');
      }
      expect(await nats.messageCount()).toBe(0);
    });

    it('drops an unhandled Clerk type with 200', async () => {
      const body = clerkEvent('session.created');
      const response = await gateway.post('clerk', body, svixHeaders(CLERK_SECRET, uniqueId('msg'), body));
      expect(await response.json()).toEqual({ received: true, ignored: true });
      expect(await nats.messageCount()).toBe(0);
    });
  });

  describe('Standard Webhooks', () => {
    it('publishes a single event under its webhook-id, only for the configured types', async () => {
      const msgId = uniqueId('msg');
      const body = JSON.stringify({ type: 'plan.changed', data: { plan: 'team' } });
      expect((await gateway.post('billing', body, standardHeaders(BILLING_SECRET, msgId, body))).status).toBe(200);
      const stored = await nats.lastMessage('webhooks.billing.plan.changed');
      expect(stored.header.get('Nats-Msg-Id')).toBe(`billing:${msgId}`);

      const other = JSON.stringify({ type: 'plan.viewed' });
      expect(
        await (await gateway.post('billing', other, standardHeaders(BILLING_SECRET, uniqueId('msg'), other))).json(),
      ).toEqual({ received: true, ignored: true });
      expect(await nats.messageCount()).toBe(1);
    });

    it('publishes each event of a batch as its own message, under its own id, with sanitised subjects', async () => {
      const events = [
        { eventId: uniqueId('b'), kind: 'order.created', total: 10 },
        { eventId: uniqueId('b'), kind: 'order.paid', total: 10 },
        { eventId: uniqueId('b'), kind: 'odd type.*.>', total: 0 },
      ];
      const body = JSON.stringify({ events });
      const response = await gateway.post('bundler', body, standardHeaders(BILLING_SECRET, uniqueId('batch'), body));

      expect(response.status).toBe(200);
      expect(await nats.messageCount()).toBe(3);
      const paid = await nats.lastMessage('webhooks.bundler.order.paid');
      expect(paid.header.get('Nats-Msg-Id')).toBe(`bundler:${events[1].eventId}`);
      expect(JSON.parse(Buffer.from(paid.data).toString())).toEqual(events[1]);
      const odd = await nats.lastMessage('webhooks.bundler.odd_type._._');
      expect(odd.header.get('Berth-Event-Type')).toBe('odd type.*.>');

      // The provider resends the whole batch: nothing new is stored.
      const again = await gateway.post('bundler', body, standardHeaders(BILLING_SECRET, uniqueId('batch'), body));
      expect(again.status).toBe(200);
      expect(await nats.messageCount()).toBe(3);
    });
  });

  describe('HMAC-SHA256 over timestamp.body', () => {
    const sign = (body: string, timestamp = unixSeconds(), secret = HMAC_SECRET) => ({
      'x-legacy-time': String(timestamp),
      'x-legacy-signature': `sha256=${signHmacSha256({ secret, timestamp, rawBody: body })}`,
    });

    it('publishes under the body id with every type, and rejects bad signatures and stale timestamps', async () => {
      const id = uniqueId('ev');
      const body = JSON.stringify({ id, type: 'anything.at.all' });
      expect((await gateway.post('legacy', body, sign(body))).status).toBe(200);
      expect((await nats.lastMessage('webhooks.legacy.anything.at.all')).header.get('Nats-Msg-Id')).toBe(
        `legacy:${id}`,
      );

      expect((await gateway.post('legacy', body, sign(body, unixSeconds(-360)))).status).toBe(400);
      expect((await gateway.post('legacy', body, sign(body, unixSeconds(), 'wrong'))).status).toBe(400);
      expect((await gateway.post('legacy', body, {})).status).toBe(400);
      expect(await nats.messageCount()).toBe(1);
    });
  });
});
