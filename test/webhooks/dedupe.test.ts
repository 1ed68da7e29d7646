/**
 * Issue 2: "The same event sent 10 times, 5 of them at once: one inbox row, one effect, every answer 200."
 *
 * Each of the 10 requests is signed afresh, as a provider's retry is. The first 5 go at once; the other 5 go one
 * after another once the event is processed (a provider retrying because it missed the 200). Then the test waits
 * until the consumer has nothing pending, so any extra processing would have happened, and counts.
 *
 * What "one effect" means here, precisely:
 * - Stripe (billing-sync): one sync = one read of the customer from the Stripe API (to find the workspace), one
 *   read of the customer's subscriptions, one write of `workspaces.billing`, one "Workspace billing synced" log line.
 *   The stand-in counts the reads. Between the two bursts the subscriptions change at the stand-in (quantity 3 → 9):
 *   a second sync would write 9, so the stored quantity staying 3 shows no second write happened.
 * - Clerk (identity-sync): one applied change = one "Clerk user change applied" log line for that user, no "not
 *   newer" line (a second run would log one), and the `users` document unchanged, field for field (its
 *   `clerkSyncedAt` included), from just after processing to the end.
 * And for both: the inbox row has `attempts: 1`, so the handler ran once.
 */
import { waitFor } from '@berth/local-infra/testing';
import { randomUUID } from 'node:crypto';
import type { InboxEventDocument } from '@berth/inbox';
import type { GatewayAnswer } from '../support/webhook-senders';
import { startMesh, type Mesh } from '../support/mesh';

const run = randomUUID().slice(0, 8);
let mesh: Mesh;

beforeAll(async () => {
  mesh = await startMesh({ name: 'webhooks_dedupe' });
}, 180_000);
afterAll(async () => {
  await mesh?.stop();
}, 60_000);

/** Sends `send` 5 times at once, then (after `between`) 5 times one by one; returns the 10 answers. */
async function sendTenTimes(
  send: () => Promise<GatewayAnswer>,
  between: () => Promise<void>,
): Promise<GatewayAnswer[]> {
  const burst = await Promise.all(Array.from({ length: 5 }, send));
  await between();
  const retries: GatewayAnswer[] = [];
  for (let i = 0; i < 5; i += 1) retries.push(await send());
  return [...burst, ...retries];
}

function waitProcessed(key: string): Promise<InboxEventDocument | null> {
  return waitFor(() => mesh.inbox.events.findOne({ _id: key }), {
    what: `${key} processed`,
    timeoutMs: 30_000,
    intervalMs: 100,
    until: (row) => row?.processedAt != null,
  });
}

describe('the same event delivered 10 times, 5 at once', () => {
  it('Stripe: every answer 200, one inbox row, one sync of the workspace billing', async () => {
    const workspaceId = `org_dedupe_${run}`;
    const customerId = `cus_dedupe_${run}`;
    const eventId = `evt_dedupe_${run}`;
    await mesh.db
      .collection<{ _id: string; name: string }>('workspaces')
      .insertOne({ _id: workspaceId, name: 'Dedupe Inc' });
    mesh.standIn.setCustomer({ id: customerId, metadata: { workspaceId } });
    mesh.standIn.setSubscriptions(customerId, [
      { id: `sub_dedupe_${run}`, status: 'active', items: [{ priceId: 'price_pro', quantity: 3 }] },
    ]);
    const event = JSON.stringify({
      id: eventId,
      object: 'event',
      type: 'customer.subscription.updated',
      api_version: '2025-03-31.basil',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: { id: `sub_dedupe_${run}`, object: 'subscription', customer: customerId, status: 'active' } },
    });

    const answers = await sendTenTimes(
      () => mesh.sender.sendStripe(event),
      async () => {
        await waitProcessed(`stripe:${eventId}`);
        // Stripe's state changes now: a second sync would write quantity 9.
        mesh.standIn.setSubscriptions(customerId, [
          { id: `sub_dedupe_${run}`, status: 'active', items: [{ priceId: 'price_pro', quantity: 9 }] },
        ]);
      },
    );
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual(
      Array.from({ length: 10 }, () => [200, '{"received":true}']),
    );
    await mesh.waitForConsumerSettled('billing-sync', 30_000);

    // One message in JetStream (Nats-Msg-Id stripe:<id>), one inbox row, one attempt.
    expect(await mesh.streamMessageCount('webhooks.stripe.>')).toBe(1);
    const rows = await mesh.inbox.events.find({ provider: 'stripe', eventId }).toArray();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ _id: `stripe:${eventId}`, attempts: 1, lastError: null, abandonedAt: null });
    expect(rows[0].processedAt).toBeInstanceOf(Date);

    // One sync: one customer read, one subscriptions read, one billing write.
    expect(mesh.standIn.requestCount(`/v1/customers/${customerId}`)).toBe(1);
    expect(mesh.standIn.requestCount('/v1/subscriptions', { customer: customerId })).toBe(1);
    const billingSync = mesh.service('billing-sync');
    expect(billingSync.logged('Workspace billing synced', { customerId })).toHaveLength(1);
    expect(billingSync.logged('Webhook event processed', { eventId })).toHaveLength(1);
    const workspace = await mesh.db
      .collection<{ _id: string; billing?: Record<string, unknown> & { syncedAt: Date } }>('workspaces')
      .findOne({ _id: workspaceId });
    expect(workspace?.billing).toMatchObject({
      customerId,
      status: 'active',
      subscriptions: [{ id: `sub_dedupe_${run}`, status: 'active', items: [{ priceId: 'price_pro', quantity: 3 }] }],
    });
    expect(workspace!.billing!.syncedAt.getTime()).toBeLessThanOrEqual(rows[0].processedAt!.getTime());
  }, 120_000);

  it('Clerk (Svix-signed): every answer 200, one inbox row, the user written once', async () => {
    const userId = `user_dedupe_${run}`;
    const msgId = `msg_dedupe_${run}`;
    const at = Date.now();
    const event = {
      type: 'user.created',
      timestamp: at,
      data: {
        id: userId,
        object: 'user',
        first_name: 'Ada',
        last_name: 'Lovelace',
        username: null,
        image_url: 'https://img.clerk.com/ada',
        primary_email_address_id: 'idn_ada',
        email_addresses: [{ id: 'idn_ada', object: 'email_address', email_address: 'ada@example.com' }],
        created_at: at,
        updated_at: at,
      },
    };
    const users = mesh.db.collection<{ _id: string; clerkSyncedAt?: Date }>('users');
    let afterProcessing: unknown;

    const answers = await sendTenTimes(
      () => mesh.sender.sendClerk(msgId, event),
      async () => {
        await waitProcessed(`clerk:${msgId}`);
        afterProcessing = await users.findOne({ _id: userId });
      },
    );
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual(
      Array.from({ length: 10 }, () => [200, '{"received":true}']),
    );
    await mesh.waitForConsumerSettled('identity-sync', 30_000);

    expect(await mesh.streamMessageCount('webhooks.clerk.>')).toBe(1);
    const rows = await mesh.inbox.events.find({ provider: 'clerk', eventId: msgId }).toArray();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      _id: `clerk:${msgId}`,
      type: 'user.created',
      attempts: 1,
      lastError: null,
      abandonedAt: null,
    });
    expect(rows[0].processedAt).toBeInstanceOf(Date);

    const identitySync = mesh.service('identity-sync');
    expect(identitySync.logged('Clerk user change applied', { clerkId: userId })).toHaveLength(1);
    expect(identitySync.logged(/not newer/, { clerkId: userId })).toHaveLength(0);
    expect(await users.countDocuments({ _id: userId })).toBe(1);
    const user = await users.findOne({ _id: userId });
    expect(user).toEqual(afterProcessing);
    expect(user).toMatchObject({
      clerkUserId: userId,
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      deletedAt: null,
    });
    expect(user!.clerkSyncedAt!.getTime()).toBeLessThanOrEqual(rows[0].processedAt!.getTime());
  }, 120_000);
});
