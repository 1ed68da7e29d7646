/**
 * Issue 2: "MongoDB stopped for 30 s while events arrive: the gateway keeps answering 200, and every event is applied
 * once MongoDB is back."
 *
 * FerretDB (the test MongoDB) is stopped; during the next 30 s, 50 events (25 Stripe, 25 Clerk) are sent through the
 * gateway, one every 0.6 s; then FerretDB is started again on the same port and data. The services keep running
 * throughout (same processes, no restart): the consumers must recover by themselves. Each event is then applied once:
 * one subscriptions read and one "Workspace billing synced" per Stripe customer, one "Clerk user change applied" per
 * user, every inbox row processed.
 */
import { holdFault, waitFor } from '@berth/local-infra/testing';
import { randomUUID } from 'node:crypto';
import type { GatewayAnswer } from '../support/webhook-senders';
import { startMesh, type Mesh } from '../support/mesh';

const run = randomUUID().slice(0, 8);
const OUTAGE_MS = 30_000;
const PER_PROVIDER = 25;
let mesh: Mesh;

beforeAll(async () => {
  mesh = await startMesh({ name: 'webhooks_mongo_outage' });
}, 180_000);
afterAll(async () => {
  await mesh?.stop();
}, 60_000);

const workspaceId = (i: number): string => `org_outage_${run}_${i}`;
const customerId = (i: number): string => `cus_outage_${run}_${i}`;
const stripeEventId = (i: number): string => `evt_outage_${run}_${i}`;
const userId = (i: number): string => `user_outage_${run}_${i}`;
const clerkMsgId = (i: number): string => `msg_outage_${run}_${i}`;

function sendStripe(i: number): Promise<GatewayAnswer> {
  return mesh.sender.sendStripe({
    id: stripeEventId(i),
    object: 'event',
    type: 'customer.subscription.updated',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: { object: { id: `sub_outage_${run}_${i}`, object: 'subscription', customer: customerId(i) } },
  });
}

function sendClerk(i: number): Promise<GatewayAnswer> {
  const at = Date.now();
  return mesh.sender.sendClerk(clerkMsgId(i), {
    type: 'user.created',
    timestamp: at,
    data: {
      id: userId(i),
      object: 'user',
      first_name: `Outage${i}`,
      email_addresses: [],
      created_at: at,
      updated_at: at,
    },
  });
}

/** Event ids a consumer logged as processed (or found already processed). */
function processedIds(service: 'billing-sync' | 'identity-sync', prefix: string): Set<unknown> {
  const ids = new Set<unknown>();
  for (const line of mesh.service(service).lines) {
    if (
      (line.msg === 'Webhook event processed' || line.msg === 'Webhook event already processed; skipped') &&
      String(line.eventId).startsWith(prefix)
    )
      ids.add(line.eventId);
  }
  return ids;
}

describe('MongoDB stopped for 30 s while events arrive', () => {
  it('the gateway answers 200 throughout, and every event is applied once when MongoDB is back', async () => {
    // Setup, and one event per provider through the whole path before the outage.
    await mesh.db
      .collection<{ _id: string; name: string }>('workspaces')
      .insertMany(Array.from({ length: PER_PROVIDER + 1 }, (_, i) => ({ _id: workspaceId(i), name: `Outage ${i}` })));
    for (let i = 0; i <= PER_PROVIDER; i += 1) {
      mesh.standIn.setCustomer({ id: customerId(i), metadata: { workspaceId: workspaceId(i) } });
      mesh.standIn.setSubscriptions(customerId(i), [
        { id: `sub_outage_${run}_${i}`, items: [{ priceId: 'price_outage', quantity: i + 1 }] },
      ]);
    }
    expect((await sendStripe(0)).status).toBe(200);
    expect((await sendClerk(0)).status).toBe(200);
    await waitFor(
      () =>
        mesh.inbox.events.countDocuments({
          _id: { $in: [`stripe:${stripeEventId(0)}`, `clerk:${clerkMsgId(0)}`] },
          processedAt: { $ne: null },
        }),
      { what: 'the warm-up events processed', timeoutMs: 30_000, intervalMs: 100, until: (count) => count === 2 },
    );

    // The outage: 50 events arrive while the store's MongoDB endpoint (FerretDB) is down.
    await mesh.ferret.process.stop();
    const outageStart = Date.now();
    const sends: Promise<GatewayAnswer & { kind: string }>[] = [];
    for (let k = 0; k < 2 * PER_PROVIDER; k += 1) {
      // Spread over the outage: event k at 0.6·k s (the last one at 29.4 s).
      const due = outageStart + Math.floor((k * (OUTAGE_MS - 600)) / (2 * PER_PROVIDER - 1));
      await holdFault(Math.max(0, due - Date.now()), `event ${k} arrives ${due - outageStart} ms into the outage`);
      const i = Math.floor(k / 2) + 1;
      sends.push(
        k % 2 === 0
          ? sendStripe(i).then((answer) => ({ ...answer, kind: `stripe ${i}` }))
          : sendClerk(i).then((answer) => ({ ...answer, kind: `clerk ${i}` })),
      );
    }
    const answers = await Promise.all(sends);
    expect(Date.now() - outageStart).toBeLessThan(OUTAGE_MS);
    expect(mesh.ferret.process.child.exitCode !== null || mesh.ferret.process.child.signalCode !== null).toBe(true);
    await holdFault(
      Math.max(0, outageStart + OUTAGE_MS - Date.now()),
      'FerretDB stays down for the rest of the outage',
    );
    await mesh.ferret.restart();
    const backAt = Date.now();

    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    expect(answers.filter((answer) => answer.body !== '{"received":true}')).toEqual([]);
    // "Within 2 s" is the gateway's promise to providers; these had nothing to do with MongoDB.
    expect(Math.max(...answers.map((answer) => answer.elapsedMs))).toBeLessThan(2000);
    expect(await mesh.streamMessageCount()).toBe(2 + 2 * PER_PROVIDER);

    // Every event applied, by the same consumer processes (they were not restarted).
    await waitFor(
      async () => [
        processedIds('billing-sync', `evt_outage_${run}_`).size,
        processedIds('identity-sync', `msg_outage_${run}_`).size,
      ],
      {
        what: 'all 50 events (and the 2 warm-ups) processed after MongoDB came back',
        timeoutMs: 180_000,
        intervalMs: 250,
        until: ([stripe, clerk]) => stripe === PER_PROVIDER + 1 && clerk === PER_PROVIDER + 1,
      },
    );
    const recoveredInMs = Date.now() - backAt;
    await Promise.all([
      mesh.waitForConsumerSettled('billing-sync', 60_000),
      mesh.waitForConsumerSettled('identity-sync', 60_000),
    ]);
    for (const name of ['billing-sync', 'identity-sync', 'gateway'] as const) {
      expect({ name, runs: mesh.service(name).runs, running: mesh.service(name).running }).toEqual({
        name,
        runs: 1,
        running: true,
      });
    }

    const rows = await mesh.inbox.events.find({}, { projection: { payload: 0 } }).toArray();
    expect(rows).toHaveLength(2 + 2 * PER_PROVIDER);
    expect(rows.filter((row) => row.processedAt === null || row.abandonedAt !== null).map((row) => row._id)).toEqual(
      [],
    );

    const billingSync = mesh.service('billing-sync');
    const identitySync = mesh.service('identity-sync');
    const workspaces = await mesh.db
      .collection<{
        _id: string;
        billing?: { customerId: string; subscriptions: { items: { quantity: number }[] }[] };
      }>('workspaces')
      .find({ _id: { $in: Array.from({ length: PER_PROVIDER + 1 }, (_, i) => workspaceId(i)) } })
      .toArray();
    const users = await mesh.db.collection<{ _id: string; firstName: string }>('users').find({}).toArray();
    const notAppliedOnce: string[] = [];
    for (let i = 0; i <= PER_PROVIDER; i += 1) {
      const workspace = workspaces.find((candidate) => candidate._id === workspaceId(i));
      const subscriptionReads = mesh.standIn.requestCount('/v1/subscriptions', { customer: customerId(i) });
      const synced = billingSync.logged('Workspace billing synced', { customerId: customerId(i) }).length;
      if (
        workspace?.billing?.subscriptions[0]?.items[0]?.quantity !== i + 1 ||
        subscriptionReads !== 1 ||
        synced !== 1
      ) {
        notAppliedOnce.push(
          `stripe ${i}: quantity ${workspace?.billing?.subscriptions[0]?.items[0]?.quantity}, subscription reads ${subscriptionReads}, synced ${synced}`,
        );
      }
      const user = users.find((candidate) => candidate._id === userId(i));
      const applied = identitySync.logged('Clerk user change applied', { clerkId: userId(i) }).length;
      if (user?.firstName !== `Outage${i}` || applied !== 1)
        notAppliedOnce.push(`clerk ${i}: firstName ${user?.firstName}, applied ${applied}`);
    }
    expect(notAppliedOnce).toEqual([]);

    const attempts = rows.reduce<Record<number, number>>(
      (count, row) => ({ ...count, [row.attempts]: (count[row.attempts] ?? 0) + 1 }),
      {},
    );
    process.stdout.write(
      `mongo-outage: 50 answers during the outage, slowest ${Math.max(...answers.map((answer) => answer.elapsedMs))} ms; ` +
        `all applied ${Math.round(recoveredInMs / 1000)} s after FerretDB was back; inbox attempts per event ${JSON.stringify(attempts)}; ` +
        `consumer retries logged: billing-sync ${billingSync.logged(/^Attempt \d+ failed/).length}, identity-sync ${identitySync.logged(/^Attempt \d+ failed/).length}\n`,
    );
  }, 360_000);
});
