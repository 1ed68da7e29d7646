/**
 * Issue 2: "tampered body, stale or future timestamp, missing header, wrong secret fail with 400 and nothing reaches
 * JetStream or MongoDB". Through the real gateway process, with both consumers running, so that anything the gateway
 * let through would show up as a stream message and an inbox row. A correctly signed request per provider at the end
 * shows the same path does deliver: the emptiness before it is not an idle pipeline.
 */
import { waitFor } from '@berth/local-infra/testing';
import { randomUUID } from 'node:crypto';
import {
  newStripeSecret,
  newSvixSecret,
  type ClerkSendOptions,
  type StripeSendOptions,
} from '../support/webhook-senders';
import { startMesh, type Mesh } from '../support/mesh';

const SIX_MINUTES_S = 6 * 60;
const run = randomUUID().slice(0, 8);
let mesh: Mesh;

beforeAll(async () => {
  mesh = await startMesh({ name: 'webhooks_signatures' });
}, 180_000);
afterAll(async () => {
  await mesh?.stop();
}, 60_000);

function stripeEvent(id: string): Record<string, unknown> {
  return {
    id,
    object: 'event',
    type: 'customer.subscription.updated',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object: { id: `sub_${id}`, object: 'subscription', customer: `cus_sig_${run}` } },
  };
}

function clerkEvent(userId: string): {
  type: string;
  timestamp: number;
  data: { id: string } & Record<string, unknown>;
} {
  const now = Date.now();
  return {
    type: 'user.created',
    timestamp: now,
    data: { id: userId, object: 'user', first_name: 'Sig', created_at: now, updated_at: now },
  };
}

const stripeCases: [string, string, (id: string) => StripeSendOptions & { body?: string }][] = [
  [
    'tampered body',
    'bad_signature',
    (id) => ({
      signedPayload: JSON.stringify(stripeEvent(id)),
      body: JSON.stringify({ ...stripeEvent(id), livemode: true }),
    }),
  ],
  [
    'timestamp 6 minutes old',
    'timestamp_out_of_tolerance',
    () => ({ timestamp: Math.floor(Date.now() / 1000) - SIX_MINUTES_S }),
  ],
  [
    'timestamp 6 minutes ahead',
    'timestamp_out_of_tolerance',
    () => ({ timestamp: Math.floor(Date.now() / 1000) + SIX_MINUTES_S }),
  ],
  ['no Stripe-Signature header', 'missing_header', () => ({ omitSignature: true })],
  ['signed with another secret', 'bad_signature', () => ({ secret: newStripeSecret() })],
];

const clerkCases: [string, string, (userId: string) => ClerkSendOptions & { body?: string }][] = [
  [
    'tampered body',
    'bad_signature',
    (userId) => ({
      signedPayload: JSON.stringify({ object: 'event', ...clerkEvent(userId) }),
      body: JSON.stringify({
        object: 'event',
        ...clerkEvent(userId),
        data: { ...clerkEvent(userId).data, first_name: 'Mallory' },
      }),
    }),
  ],
  [
    'svix-timestamp 6 minutes old',
    'timestamp_out_of_tolerance',
    () => ({ signedAt: new Date(Date.now() - SIX_MINUTES_S * 1000) }),
  ],
  [
    'svix-timestamp 6 minutes ahead',
    'timestamp_out_of_tolerance',
    () => ({ signedAt: new Date(Date.now() + SIX_MINUTES_S * 1000) }),
  ],
  ['no svix-signature header', 'missing_header', () => ({ omitHeaders: ['svix-signature'] })],
  ['no svix-timestamp header', 'missing_header', () => ({ omitHeaders: ['svix-timestamp'] })],
  ['signed with another secret', 'bad_signature', () => ({ secret: newSvixSecret() })],
];

describe('signed webhooks through the gateway process: bad signatures are refused and go nowhere', () => {
  it.each(stripeCases)(
    'Stripe, %s → 400 invalid_signature (%s), nothing stored',
    async (_name, reason, options) => {
      const id = `evt_sig_${run}_${randomUUID().slice(0, 8)}`;
      const { body, ...sendOptions } = options(id);
      const answer = await mesh.sender.sendStripe(body ?? stripeEvent(id), sendOptions);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ error: 'invalid_signature', reason });
      expect(await mesh.streamMessageCount()).toBe(0);
    },
    30_000,
  );

  it.each(clerkCases)(
    'Clerk, %s → 400 invalid_signature (%s), nothing stored',
    async (_name, reason, options) => {
      const userId = `user_sig_${run}_${randomUUID().slice(0, 8)}`;
      const { body, ...sendOptions } = options(userId);
      const answer = await mesh.sender.sendClerk(`msg_sig_${userId}`, body ?? clerkEvent(userId), sendOptions);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ error: 'invalid_signature', reason });
      expect(await mesh.streamMessageCount()).toBe(0);
    },
    30_000,
  );

  it('after every refusal: WEBHOOKS is empty and the inbox has no row; then a good request per provider is stored and processed (control)', async () => {
    expect(await mesh.streamMessageCount()).toBe(0);
    expect(await mesh.inbox.events.countDocuments({})).toBe(0);
    expect(await mesh.db.collection('users').countDocuments({})).toBe(0);
    // Nothing reached billing-sync's Stripe reads either.
    expect(mesh.standIn.requestCount()).toBe(0);

    // Control: the same path with good signatures delivers to JetStream and to the consumers.
    mesh.standIn.setCustomer({ id: `cus_sig_${run}` }); // linked to no workspace: processed as "nothing to sync"
    const goodStripeId = `evt_sig_${run}_good`;
    const goodUserId = `user_sig_${run}_good`;
    expect((await mesh.sender.sendStripe(stripeEvent(goodStripeId))).status).toBe(200);
    expect((await mesh.sender.sendClerk(`msg_sig_${goodUserId}`, clerkEvent(goodUserId))).status).toBe(200);
    expect(await mesh.streamMessageCount()).toBe(2);
    const rows = await waitFor(() => mesh.inbox.events.find({}).toArray(), {
      what: 'both good events processed',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (found) => found.length === 2 && found.every((row) => row.processedAt !== null),
    });
    expect(rows.map((row) => row._id).sort()).toEqual([`clerk:msg_sig_${goodUserId}`, `stripe:${goodStripeId}`]);
    expect(await mesh.db.collection('users').countDocuments({})).toBe(1);
  }, 60_000);
});
