import { ShiftedClock } from '@berth/contract/testing';
import { MongoClient, type Db } from 'mongodb';
import type { WebhookWorkerApp } from '@berth/webhook-handlers';
import {
  defaultToolsBinDir,
  startFerretDb,
  startNatsServer,
  type FerretDbHandle,
  type NatsServerHandle,
} from '@berth/local-infra';
import { createLogger, LogContextStore } from '@berth/logger';
import { connectMessaging, ensureStream, exponentialBackoff, webhooksStream, type Messaging } from '@berth/messaging';
import { inboxCollections, type Inbox } from '@berth/inbox';
import { captureLogLines, OutcomeLog, publishTestWebhook } from '@berth/inbox/testing';
import { StripeStandIn } from '../../../test/support/stripe-stand-in';
import {
  billingCollections,
  createBillingSyncApp,
  createStripeClient,
  loadConfig,
  type WorkspaceDocument,
} from './index';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
/** Every clock reading of the service is a year ahead, to show the injected clock is the one used. */
const CLOCK_OFFSET_MS = 365 * 24 * 3600 * 1000;
const clock = new ShiftedClock(CLOCK_OFFSET_MS);

let nats: NatsServerHandle;
let ferret: FerretDbHandle;
let standIn: StripeStandIn;
let mongo: MongoClient;
let db: Db;
let inbox: Inbox;
let messaging: Messaging;
let app: WebhookWorkerApp;
const outcomes = new OutcomeLog();
const logs = captureLogLines();
const hookCalls: string[] = [];

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNatsServer({ binDir }), startFerretDb({ binDir })]);
  standIn = new StripeStandIn();
  await standIn.start();
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`billing_sync_test_${process.pid}`);
  inbox = inboxCollections(db);
  const logContext = new LogContextStore();
  const logger = createLogger({
    service: 'billing-sync',
    level: 'debug',
    context: logContext,
    destination: logs.destination,
  });
  messaging = await connectMessaging({ servers: nats.url, name: 'billing-sync-test', logger });
  await ensureStream(messaging.jsm, webhooksStream());
  const config = loadConfig({
    NATS_URL: nats.url,
    MONGO_URL: ferret.url,
    MONGO_DB: db.databaseName,
    STRIPE_SECRET_KEY: 'sk_test_standin',
    STRIPE_API_BASE: standIn.url,
    INBOX_LEASE_MS: '2000',
    WORKSPACE_LOCK_MS: '5000',
    SHUTDOWN_GRACE_MS: '5000',
  });
  expect(config.concurrency).toBe(16);
  app = await createBillingSyncApp({
    config,
    messaging,
    db,
    logger,
    logContext,
    clock,
    stripe: createStripeClient(config),
    retryPolicy: exponentialBackoff({ maxAttempts: 6, baseDelayMs: 100 }),
    hooks: { onSubscriptionChanged: async (workspaceId) => void hookCalls.push(workspaceId) },
    onOutcome: outcomes.record,
  });
  await app.listen();
});

afterAll(async () => {
  await app?.close();
  await messaging?.close();
  await mongo?.close();
  await standIn?.stop();
  await Promise.all([ferret?.stop(), nats?.stop()]);
});

function stripeEvent(
  id: string,
  type: string,
  object: Record<string, unknown>,
): { eventId: string; type: string; body: unknown; provider: string } {
  return {
    provider: 'stripe',
    eventId: id,
    type,
    body: {
      id,
      object: 'event',
      type,
      api_version: '2026-10-28.endive',
      created: 1_893_456_000,
      livemode: false,
      data: { object },
    },
  };
}

async function workspace(id: string): Promise<WorkspaceDocument | null> {
  return billingCollections(db).workspaces.findOne({ _id: id });
}

async function insertWorkspace(id: string, customerId?: string): Promise<void> {
  const billing = customerId
    ? { customerId, subscriptions: [], status: 'none' as const, syncedAt: new Date(0) }
    : undefined;
  await billingCollections(db).workspaces.insertOne({ _id: id, ...(billing ? { billing } : {}) });
}

describe('billing-sync', () => {
  it('links a workspace at checkout and writes its subscriptions as Stripe has them now', async () => {
    await insertWorkspace('org_checkout');
    standIn.setCustomer({ id: 'cus_checkout' });
    standIn.setCheckoutSession({ id: 'cs_1', customer: 'cus_checkout', client_reference_id: 'org_checkout' });
    standIn.setSubscriptions('cus_checkout', [
      { id: 'sub_pro', status: 'active', items: [{ priceId: 'price_pro', productId: 'prod_pro', quantity: 5 }] },
    ]);
    const event = stripeEvent('evt_checkout', 'checkout.session.completed', {
      id: 'cs_1',
      object: 'checkout.session',
      customer: 'cus_checkout',
      client_reference_id: 'org_checkout',
    });
    await publishTestWebhook(messaging.js, event);
    await outcomes.waitFor('evt_checkout', 'acked');

    const billing = (await workspace('org_checkout'))!.billing!;
    expect(billing).toMatchObject({
      customerId: 'cus_checkout',
      status: 'active',
      subscriptions: [
        { id: 'sub_pro', status: 'active', items: [{ priceId: 'price_pro', productId: 'prod_pro', quantity: 5 }] },
      ],
    });
    expect(billing.syncedAt.getTime()).toBeGreaterThan(Date.now() + CLOCK_OFFSET_MS - 60000);
    expect(hookCalls).toContain('org_checkout');
    expect(await inbox.events.findOne({ _id: 'stripe:evt_checkout' })).toMatchObject({
      attempts: 1,
      type: 'checkout.session.completed',
      lastError: null,
    });
  });

  it("links a workspace through the customer's metadata.workspaceId", async () => {
    await insertWorkspace('org_meta');
    standIn.setCustomer({ id: 'cus_meta', metadata: { workspaceId: 'org_meta' } });
    standIn.setSubscriptions('cus_meta', [
      { id: 'sub_old', status: 'canceled' },
      { id: 'sub_trial', status: 'trialing' },
    ]);
    await publishTestWebhook(
      messaging.js,
      stripeEvent('evt_meta', 'customer.subscription.created', {
        id: 'sub_trial',
        object: 'subscription',
        customer: 'cus_meta',
      }),
    );
    await outcomes.waitFor('evt_meta', 'acked');
    expect((await workspace('org_meta'))!.billing).toMatchObject({ customerId: 'cus_meta', status: 'trialing' });
    expect((await workspace('org_meta'))!.billing!.subscriptions.map((subscription) => subscription.id)).toEqual([
      'sub_old',
      'sub_trial',
    ]);
  });

  it('keeps one inbox row and applies one effect when the same event arrives 10 times', async () => {
    await insertWorkspace('org_dup', 'cus_dup');
    standIn.setSubscriptions('cus_dup', [{ id: 'sub_dup' }]);
    const event = stripeEvent('evt_dup', 'invoice.paid', { id: 'in_dup', object: 'invoice', customer: 'cus_dup' });
    const sameId = Array.from({ length: 5 }, () => publishTestWebhook(messaging.js, event));
    const distinctIds = Array.from({ length: 5 }, (_, index) =>
      publishTestWebhook(messaging.js, { ...event, msgId: `stripe:evt_dup:copy-${index}` }),
    );
    const acks = await Promise.all([...sameId, ...distinctIds]);
    expect(acks.filter((ack) => ack.duplicate)).toHaveLength(4);

    await outcomes.waitFor('evt_dup', 'acked', 6);
    expect(await inbox.events.countDocuments({ eventId: 'evt_dup' })).toBe(1);
    expect(await inbox.events.findOne({ _id: 'stripe:evt_dup' })).toMatchObject({ attempts: 1, lastError: null });
    expect((await inbox.events.findOne({ _id: 'stripe:evt_dup' }))!.processedAt).toBeInstanceOf(Date);
    expect(standIn.requestCount('/v1/subscriptions', { customer: 'cus_dup' })).toBe(1);
    expect(hookCalls.filter((workspaceId) => workspaceId === 'org_dup')).toHaveLength(1);
  });

  it('processes an event for a customer linked to no workspace, and logs "nothing to sync"', async () => {
    standIn.setCustomer({ id: 'cus_lonely' });
    await publishTestWebhook(
      messaging.js,
      stripeEvent('evt_lonely', 'customer.subscription.updated', {
        id: 'sub_x',
        object: 'subscription',
        customer: 'cus_lonely',
      }),
    );
    await outcomes.waitFor('evt_lonely', 'acked');
    expect((await inbox.events.findOne({ _id: 'stripe:evt_lonely' }))!.processedAt).toBeInstanceOf(Date);
    expect(
      logs.lines.find((line) => line.eventId === 'evt_lonely' && /nothing to sync/.test(String(line.msg))),
    ).toMatchObject({ customerId: 'cus_lonely', provider: 'stripe' });
    expect(standIn.requestCount('/v1/subscriptions', { customer: 'cus_lonely' })).toBe(0);
    // Remembered as linked to none, so the next event reads the link by _id instead of querying the workspaces…
    expect(await db.collection('billingCustomers').findOne({ _id: 'cus_lonely' as never })).toMatchObject({
      workspaceId: null,
    });
    // …and a later link (here through metadata.workspaceId) replaces it.
    await insertWorkspace('org_lonely');
    standIn.setCustomer({ id: 'cus_lonely', metadata: { workspaceId: 'org_lonely' } });
    standIn.setSubscriptions('cus_lonely', [{ id: 'sub_lonely', status: 'active' }]);
    for (const id of ['evt_lonely_2', 'evt_lonely_3']) {
      await publishTestWebhook(
        messaging.js,
        stripeEvent(id, 'customer.subscription.updated', {
          id: 'sub_lonely',
          object: 'subscription',
          customer: 'cus_lonely',
        }),
      );
      await outcomes.waitFor(id, 'acked');
    }
    expect((await workspace('org_lonely'))!.billing).toMatchObject({ customerId: 'cus_lonely', status: 'active' });
    expect(await db.collection('billingCustomers').findOne({ _id: 'cus_lonely' as never })).toMatchObject({
      workspaceId: 'org_lonely',
    });
    // The third event found the workspace through its link: Stripe's customer was not read again.
    expect(standIn.requestCount('/v1/customers/cus_lonely')).toBe(2);
  });

  it('retries while Stripe answers 503, recording the error, then processes the event', async () => {
    await insertWorkspace('org_flaky', 'cus_flaky');
    standIn.setSubscriptions('cus_flaky', [{ id: 'sub_flaky', status: 'past_due' }]);
    standIn.failNext(2);
    await publishTestWebhook(
      messaging.js,
      stripeEvent('evt_flaky', 'customer.subscription.updated', {
        id: 'sub_flaky',
        object: 'subscription',
        customer: 'cus_flaky',
      }),
    );

    await outcomes.waitFor('evt_flaky', 'retried', 1);
    const meanwhile = (await inbox.events.findOne({ _id: 'stripe:evt_flaky' }))!;
    expect(meanwhile).toMatchObject({ processedAt: null, leaseOwner: null });
    expect(meanwhile.attempts).toBeGreaterThanOrEqual(1);
    expect(meanwhile.lastError).toMatch(/^StripeUnavailableError: .*503/);

    await outcomes.waitFor('evt_flaky', 'acked');
    const done = (await inbox.events.findOne({ _id: 'stripe:evt_flaky' }))!;
    expect(done.attempts).toBe(3);
    expect(done.processedAt).toBeInstanceOf(Date);
    expect(done.lastError).toMatch(/503/);
    expect(outcomes.outcomes('evt_flaky')).toEqual(['retried', 'retried', 'acked']);
    expect((await workspace('org_flaky'))!.billing).toMatchObject({
      status: 'past_due',
      subscriptions: [{ id: 'sub_flaky' }],
    });
    expect(standIn.requestCount('/v1/subscriptions', { customer: 'cus_flaky' })).toBe(3);
  });

  it('serializes syncs of one workspace under its lock', async () => {
    await insertWorkspace('org_busy', 'cus_busy');
    standIn.setSubscriptions('cus_busy', [{ id: 'sub_busy' }]);
    const ids = ['evt_busy_1', 'evt_busy_2', 'evt_busy_3'];
    await Promise.all(
      ids.map((id) =>
        publishTestWebhook(
          messaging.js,
          stripeEvent(id, 'invoice.payment_succeeded', { id: `in_${id}`, object: 'invoice', customer: 'cus_busy' }),
        ),
      ),
    );
    await Promise.all(ids.map((id) => outcomes.waitFor(id, 'acked')));
    expect(standIn.requestCount('/v1/subscriptions', { customer: 'cus_busy' })).toBe(3);
    // One lease document per workspace, taken in place by each sync and released after it.
    expect(
      await db
        .collection('workspaceLocks')
        .find({ _id: { $regex: '^billing:org_busy' } as never })
        .toArray(),
    ).toEqual([expect.objectContaining({ _id: 'billing:org_busy', releasedAt: expect.any(Date) as unknown })]);
  });

  it('finds a linked workspace through the customer link by _id, and not through a customer it was relinked from', async () => {
    await insertWorkspace('org_move');
    standIn.setCustomer({ id: 'cus_first' });
    standIn.setCustomer({ id: 'cus_second' });
    standIn.setSubscriptions('cus_first', [{ id: 'sub_first', status: 'active' }]);
    standIn.setSubscriptions('cus_second', [{ id: 'sub_second', status: 'trialing' }]);
    standIn.setCheckoutSession({ id: 'cs_first', customer: 'cus_first', client_reference_id: 'org_move' });
    standIn.setCheckoutSession({ id: 'cs_second', customer: 'cus_second', client_reference_id: 'org_move' });
    const checkout = (id: string, session: string, customer: string) =>
      stripeEvent(id, 'checkout.session.completed', {
        id: session,
        object: 'checkout.session',
        customer,
        client_reference_id: 'org_move',
      });
    const update = (id: string, customer: string) =>
      stripeEvent(id, 'customer.subscription.updated', { id: `sub_${id}`, object: 'subscription', customer });
    for (const event of [checkout('evt_move_1', 'cs_first', 'cus_first'), update('evt_move_2', 'cus_first')]) {
      await publishTestWebhook(messaging.js, event);
      await outcomes.waitFor(event.eventId, 'acked');
    }
    expect(await db.collection('billingCustomers').findOne({ _id: 'cus_first' as never })).toMatchObject({
      workspaceId: 'org_move',
    });
    expect((await workspace('org_move'))!.billing).toMatchObject({
      customerId: 'cus_first',
      status: 'active',
    });
    expect(standIn.requestCount('/v1/customers/cus_first')).toBe(0);

    for (const event of [checkout('evt_move_3', 'cs_second', 'cus_second'), update('evt_move_4', 'cus_first')]) {
      await publishTestWebhook(messaging.js, event);
      await outcomes.waitFor(event.eventId, 'acked');
    }
    expect((await workspace('org_move'))!.billing).toMatchObject({
      customerId: 'cus_second',
      status: 'trialing',
    });
    expect(
      logs.lines.find((line) => line.eventId === 'evt_move_4' && /nothing to sync/.test(String(line.msg))),
    ).toMatchObject({ customerId: 'cus_first' });
    expect(standIn.requestCount('/v1/subscriptions', { customer: 'cus_first' })).toBe(2);
  });

  it('copies disputes, refunds and early fraud warnings as Stripe has them now', async () => {
    standIn.setDispute({ id: 'du_1', status: 'under_review', amount: 4200 });
    standIn.setRefund({ id: 're_1', status: 'pending' });
    standIn.setEarlyFraudWarning({ id: 'issfr_1', actionable: false });
    const events = [
      stripeEvent('evt_dispute', 'charge.dispute.created', { id: 'du_1', object: 'dispute', status: 'needs_response' }),
      stripeEvent('evt_refund', 'refund.updated', { id: 're_1', object: 'refund' }),
      stripeEvent('evt_efw', 'radar.early_fraud_warning.created', {
        id: 'issfr_1',
        object: 'radar.early_fraud_warning',
      }),
    ];
    await Promise.all(events.map((event) => publishTestWebhook(messaging.js, event)));
    await Promise.all(events.map((event) => outcomes.waitFor(event.eventId, 'acked')));
    expect(await db.collection('billingDisputes').findOne({ _id: 'du_1' as never })).toMatchObject({
      status: 'under_review',
      amount: 4200,
      chargeId: 'ch_1',
    });
    expect(await db.collection('billingRefunds').findOne({ _id: 're_1' as never })).toMatchObject({
      status: 'pending',
      amount: 500,
    });
    expect(await db.collection('fraudWarnings').findOne({ _id: 'issfr_1' as never })).toMatchObject({
      actionable: false,
      fraudType: 'made_with_stolen_card',
    });
  });

  it('sets aside at once an event whose object Stripe does not have', async () => {
    await publishTestWebhook(
      messaging.js,
      stripeEvent('evt_ghost', 'charge.dispute.updated', { id: 'du_ghost', object: 'dispute' }),
    );
    await outcomes.waitFor('evt_ghost', 'terminated');
    const row = (await inbox.events.findOne({ _id: 'stripe:evt_ghost' }))!;
    expect(row.abandonedAt).toBeInstanceOf(Date);
    expect(row.lastError).toMatch(/^UnrecoverableError: Stripe refused dispute du_ghost: 404/);
  });

  it('processes an event type it does not handle without touching Stripe', async () => {
    const before = standIn.requestCount();
    await publishTestWebhook(
      messaging.js,
      stripeEvent('evt_product', 'product.created', { id: 'prod_1', object: 'product' }),
    );
    await outcomes.waitFor('evt_product', 'acked');
    expect(standIn.requestCount()).toBe(before);
    expect((await inbox.events.findOne({ _id: 'stripe:evt_product' }))!.processedAt).toBeInstanceOf(Date);
  });
});
