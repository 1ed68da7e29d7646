/**
 * Issue 5: "A test scrapes `/metrics` after known traffic and checks the counters' values, not only their names."
 *
 * The gateway, billing-sync and identity-sync run as child processes (the test mesh). Known traffic:
 * - Stripe: 3 accepted events (a subscription change for a linked customer → synced; an invoice for a customer
 *   linked to no workspace → "nothing to sync"; a dispute Stripe does not know → 404 → set aside), 1 duplicate
 *   (the first event again), 2 invalid signatures (wrong secret, tampered body), 1 ignored (an unhandled type);
 * - Clerk: 1 accepted user event.
 * billing-sync runs one event at a time and the Stripe stand-in answers slowly at first, so that the test sees
 * `queue_depth` with one event in flight and two waiting before anything is processed.
 *
 * Then every counter is checked by value: the gateway's `webhook_inbound_total{provider,outcome}`, the consumers'
 * `job_completed_total{queue,outcome}`, `job_duration_seconds`, `queue_depth{queue,state}`, `webhook_dlq_depth` and
 * `webhook_oldest_unprocessed_age_seconds`; and each service's `/healthz` and `/readyz`.
 */
import { waitFor } from '@berth/local-infra/testing';
import { randomUUID } from 'node:crypto';
import { sampleValue, parsePrometheusText, type PrometheusSample } from '@berth/metrics/testing';
import { newStripeSecret } from '../support/webhook-senders';
import { startMesh, type Mesh, type MeshServiceName } from '../support/mesh';

const run = randomUUID().slice(0, 8);
/** How long the stand-in holds each Stripe answer while the test looks at the queue. */
const HELD_STRIPE_MS = 4000;
let mesh: Mesh;
const base: Partial<Record<MeshServiceName, string>> = {};

beforeAll(async () => {
  const health = { HEALTH_PORT: '0', HEALTH_HOST: '127.0.0.1', METRICS_READ_CACHE_MS: '0' };
  mesh = await startMesh({
    name: 'observability_metrics',
    // A 3 s inbox lease is renewed every second: the held first attempt writes its row at that first renewal.
    env: {
      'billing-sync': { ...health, BILLING_SYNC_CONCURRENCY: '1', INBOX_LEASE_MS: '3000' },
      'identity-sync': health,
    },
  });
  for (const [name, ready] of [
    ['gateway', /^Gateway listening on/],
    ['billing-sync', 'Billing sync ready'],
    ['identity-sync', 'Identity sync ready'],
  ] as const) {
    const port = mesh.service(name).logged(ready)[0]?.healthPort;
    if (typeof port !== 'number') throw new Error(`${name} logged no healthPort in its ready line`);
    base[name] = `http://127.0.0.1:${port}`;
  }
}, 180_000);

afterAll(async () => {
  await mesh?.stop();
}, 60_000);

async function scrape(service: MeshServiceName): Promise<PrometheusSample[]> {
  const response = await fetch(`${base[service]}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await response.text());
}

function stripeEvent(id: string, type: string, object: Record<string, unknown>): Record<string, unknown> {
  return {
    id,
    object: 'event',
    type,
    api_version: '2025-03-31.basil',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object },
  };
}

describe('/metrics after known traffic', () => {
  it('serves /healthz and /readyz on every service', async () => {
    for (const service of ['gateway', 'billing-sync', 'identity-sync'] as const) {
      expect({
        service,
        healthz: (await fetch(`${base[service]}/healthz`)).status,
        readyz: (await fetch(`${base[service]}/readyz`)).status,
      }).toEqual({ service, healthz: 200, readyz: 200 });
    }
  });

  it('counts requests by outcome at the gateway, and runs, durations, depth and the backlog at the consumers', async () => {
    const { standIn, sender, db } = mesh;
    const workspaceId = `org_metrics_${run}`;
    const linkedCustomer = `cus_metrics_${run}`;
    await db
      .collection<{ _id: string; name: string }>('workspaces')
      .insertOne({ _id: workspaceId, name: 'Metrics Inc' });
    standIn.setCustomer({ id: linkedCustomer, metadata: { workspaceId } });
    standIn.setCustomer({ id: `cus_unlinked_${run}`, metadata: {} });
    standIn.setSubscriptions(linkedCustomer, [
      { id: `sub_metrics_${run}`, status: 'active', items: [{ priceId: 'price_pro', quantity: 1 }] },
    ]);
    const subscriptionEvent = JSON.stringify(
      stripeEvent(`evt_sub_${run}`, 'customer.subscription.updated', {
        id: `sub_metrics_${run}`,
        object: 'subscription',
        customer: linkedCustomer,
        status: 'active',
      }),
    );
    const invoiceEvent = stripeEvent(`evt_inv_${run}`, 'invoice.paid', {
      id: `in_${run}`,
      object: 'invoice',
      customer: `cus_unlinked_${run}`,
    });
    const disputeEvent = stripeEvent(`evt_dp_${run}`, 'charge.dispute.created', {
      id: `dp_unknown_${run}`,
      object: 'dispute',
    });

    // Stripe answers slowly, so the first event delivered stays in flight while the other two wait.
    standIn.setLatency(HELD_STRIPE_MS);
    const answers = [
      await sender.sendStripe(subscriptionEvent),
      await sender.sendStripe(invoiceEvent),
      await sender.sendStripe(disputeEvent),
      await sender.sendStripe(subscriptionEvent), // the same event again: a JetStream duplicate
      await sender.sendStripe(invoiceEvent, { secret: newStripeSecret() }),
      await sender.sendStripe(invoiceEvent, { signedPayload: JSON.stringify({ ...invoiceEvent, id: 'evt_forged' }) }),
      await sender.sendStripe(
        stripeEvent(`evt_pi_${run}`, 'payment_intent.created', { id: `pi_${run}`, object: 'payment_intent' }),
      ),
      await sender.sendClerk(`msg_metrics_${run}`, {
        type: 'user.created',
        timestamp: Date.now(),
        data: {
          id: `user_metrics_${run}`,
          first_name: 'Ada',
          last_name: 'Lovelace',
          email_addresses: [],
          created_at: Date.now(),
          updated_at: Date.now(),
        },
      }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 400, 400, 200, 200]);

    // queue_depth while one event runs (concurrency 1) and two wait; the running one is the oldest unprocessed.
    const held = await waitFor(() => scrape('billing-sync'), {
      what: 'billing-sync to show 2 events waiting, 1 in flight, unprocessed and held at Stripe',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (samples) =>
        sampleValue(samples, 'queue_depth', { queue: 'billing-sync', state: 'pending' }) === 2 &&
        sampleValue(samples, 'queue_depth', { queue: 'billing-sync', state: 'ack_pending' }) === 1 &&
        // Once the running event's inbox row is written: a first attempt writes it when it first renews its lease.
        (sampleValue(samples, 'webhook_oldest_unprocessed_age_seconds', { provider: 'stripe' }) ?? 0) > 0 &&
        // And its Stripe request is being held: lifting the latency any earlier would let the run finish at once.
        standIn.requests.some((request) => request.status === undefined),
    });
    expect(sampleValue(held, 'queue_depth', { queue: 'billing-sync', state: 'redelivered' })).toBe(0);
    expect(sampleValue(held, 'job_duration_seconds_count', { queue: 'billing-sync' })).toBe(0);
    standIn.setLatency(0);

    await mesh.waitForConsumerSettled('billing-sync', 60_000);
    await mesh.waitForConsumerSettled('identity-sync', 30_000);

    // The gateway: one count per request, by outcome.
    const gateway = await scrape('gateway');
    const stripeInbound = Object.fromEntries(
      gateway
        .filter((sample) => sample.name === 'webhook_inbound_total' && sample.labels.provider === 'stripe')
        .map((sample) => [sample.labels.outcome, sample.value]),
    );
    expect(stripeInbound).toEqual({
      accepted: 3,
      duplicate: 1,
      invalid_signature: 2,
      ignored: 1,
      rate_limited: 0,
      too_large: 0,
      body_timeout: 0,
      invalid_event: 0,
      unavailable: 0,
      not_found: 0,
    });
    expect(sampleValue(gateway, 'webhook_inbound_total', { provider: 'clerk', outcome: 'accepted' })).toBe(1);

    // billing-sync: three runs (the duplicate never reached it), one set aside; all read after the runs.
    const billing = await waitFor(() => scrape('billing-sync'), {
      what: 'billing-sync to record its three runs',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (samples) => sampleValue(samples, 'job_duration_seconds_count', { queue: 'billing-sync' }) === 3,
    });
    expect({
      completed: sampleValue(billing, 'job_completed_total', { queue: 'billing-sync', outcome: 'completed' }),
      failed: sampleValue(billing, 'job_completed_total', { queue: 'billing-sync', outcome: 'failed' }),
      deadLettered: sampleValue(billing, 'job_completed_total', { queue: 'billing-sync', outcome: 'dead_lettered' }),
      pending: sampleValue(billing, 'queue_depth', { queue: 'billing-sync', state: 'pending' }),
      ackPending: sampleValue(billing, 'queue_depth', { queue: 'billing-sync', state: 'ack_pending' }),
      redelivered: sampleValue(billing, 'queue_depth', { queue: 'billing-sync', state: 'redelivered' }),
      setAside: sampleValue(billing, 'webhook_dlq_depth', { provider: 'stripe' }),
      oldestUnprocessedAge: sampleValue(billing, 'webhook_oldest_unprocessed_age_seconds', { provider: 'stripe' }),
    }).toEqual({
      completed: 2,
      failed: 0,
      deadLettered: 1,
      pending: 0,
      ackPending: 0,
      redelivered: 0,
      setAside: 1,
      oldestUnprocessedAge: 0,
    });
    // The held run lasted at least the stand-in's latency; every run is in a bucket.
    expect(sampleValue(billing, 'job_duration_seconds_sum', { queue: 'billing-sync' })).toBeGreaterThanOrEqual(
      HELD_STRIPE_MS / 1000,
    );
    expect(sampleValue(billing, 'job_duration_seconds_bucket', { queue: 'billing-sync', le: '+Inf' })).toBe(3);
    expect(sampleValue(billing, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    // identity-sync: the one Clerk event.
    const identity = await waitFor(() => scrape('identity-sync'), {
      what: 'identity-sync to record its run',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (samples) =>
        sampleValue(samples, 'job_completed_total', { queue: 'identity-sync', outcome: 'completed' }) === 1,
    });
    expect({
      failed: sampleValue(identity, 'job_completed_total', { queue: 'identity-sync', outcome: 'failed' }),
      deadLettered: sampleValue(identity, 'job_completed_total', { queue: 'identity-sync', outcome: 'dead_lettered' }),
      durations: sampleValue(identity, 'job_duration_seconds_count', { queue: 'identity-sync' }),
      pending: sampleValue(identity, 'queue_depth', { queue: 'identity-sync', state: 'pending' }),
      ackPending: sampleValue(identity, 'queue_depth', { queue: 'identity-sync', state: 'ack_pending' }),
      setAside: sampleValue(identity, 'webhook_dlq_depth', { provider: 'clerk' }),
      oldestUnprocessedAge: sampleValue(identity, 'webhook_oldest_unprocessed_age_seconds', { provider: 'clerk' }),
    }).toEqual({
      failed: 0,
      deadLettered: 0,
      durations: 1,
      pending: 0,
      ackPending: 0,
      setAside: 0,
      oldestUnprocessedAge: 0,
    });
  }, 150_000);
});
