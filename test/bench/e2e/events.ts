/**
 * Fresh, signed provider requests for the end-to-end benchmark: Stripe `customer.subscription.updated` for
 * `cus_demo` (the customer the Stripe stand-in knows, linked to no workspace) signed with the `stripe` library, and
 * Clerk `user.updated` signed with the `svix` library, as the providers sign them.
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { Webhook } from 'svix';
import { subscriptionUpdatedEvent } from '../harness';

/** One request ready to post, with the provider event id the inbox keys it by. */
export interface E2eRequest {
  eventId: string;
  body: Buffer;
  headers: Record<string, string>;
}

export type Provider = 'stripe' | 'clerk';

/** The customer every Stripe event names: the Stripe stand-in's `cus_demo`. */
export const BENCH_CUSTOMER = 'cus_demo';

/** How many Clerk users the `user.updated` events cycle through (each event newer than the last of its user). */
const CLERK_USERS = 100;

const run = randomBytes(5).toString('hex');
let sequence = 0;

function nextId(prefix: string): string {
  sequence += 1;
  return `${prefix}_${run}${sequence.toString(36).padStart(10, '0')}`;
}

/** A signer of Stripe events for `secret`: each call returns a fresh `evt_` id's request. */
export function stripeRequestSigner(secret: string): () => E2eRequest {
  const stripe = new Stripe('sk_test_bench_signing_only');
  return () => {
    const eventId = nextId('evt');
    const event = subscriptionUpdatedEvent(eventId, Math.floor(Date.now() / 1000)) as {
      data: { object: Record<string, unknown> };
    };
    event.data.object.customer = BENCH_CUSTOMER;
    const payload = JSON.stringify(event);
    const signature = stripe.webhooks.generateTestHeaderString({ payload, secret });
    return {
      eventId,
      body: Buffer.from(payload),
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    };
  };
}

/** `count` Stripe events signed for `secret`, each a fresh `evt_` id. */
export function stripeRequests(secret: string, count: number): E2eRequest[] {
  return Array.from({ length: count }, stripeRequestSigner(secret));
}

/** `count` Clerk `user.updated` events delivered by Svix, signed for `secret`, each a fresh `msg_` id. */
export function clerkRequests(secret: string, count: number): E2eRequest[] {
  const webhook = new Webhook(secret);
  const base = Date.now();
  return Array.from({ length: count }, (_, index) => {
    const eventId = nextId('msg');
    const updatedAt = base + index;
    const user = `user_bench_${run}_${index % CLERK_USERS}`;
    const payload = JSON.stringify({
      type: 'user.updated',
      object: 'event',
      timestamp: updatedAt,
      data: {
        id: user,
        object: 'user',
        first_name: 'Bench',
        last_name: `User ${index % CLERK_USERS}`,
        email_addresses: [],
        created_at: base - 86_400_000,
        updated_at: updatedAt,
      },
    });
    const signedAt = new Date();
    return {
      eventId,
      body: Buffer.from(payload),
      headers: {
        'content-type': 'application/json',
        'svix-id': eventId,
        'svix-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
        'svix-signature': webhook.sign(eventId, signedAt, payload),
      },
    };
  });
}
