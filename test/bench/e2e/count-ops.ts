/**
 * `npm exec -- node -r ./deploy/runtime/ts-hook.js test/bench/e2e/count-ops.ts`: the MongoDB operations one webhook costs on
 * the consumer side, per provider, counted with the driver's command monitoring (`monitorCommands`). Each event of
 * `bench:e2e` (Stripe `customer.subscription.updated` for the stand-in's `cus_demo`, Clerk `user.updated` cycling
 * through users) goes through `applyInboxEvent` and the service's handler, as billing-sync and identity-sync run it,
 * against an embedded store of its own. A linked Stripe customer (a workspace with billing) is counted too.
 *
 * Env: COUNT_OPS_EVENTS (50 per case), MONGO_URL (count against that MongoDB instead).
 */
import { systemClock } from '@berth/contract';
import { MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import { defaultToolsBinDir, startFerretDb } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { applyInboxEvent, ensureInboxIndexes, inboxCollections, type InboxEventHandler } from '@berth/inbox';
import { BillingSyncService } from '../../../services/billing-sync/src/billing-sync.service';
import { ensureBillingSyncIndexes } from '../../../services/billing-sync/src/indexes';
import { billingCollections } from '../../../services/billing-sync/src/workspaces/collections';
import { createStripeClient } from '../../../services/billing-sync/src/stripe/create-stripe-client';
import { IdentitySyncService } from '../../../services/identity-sync/src/identity-sync.service';
import { ensureIdentitySyncIndexes } from '../../../services/identity-sync/src/indexes';
import { identityCollections } from '../../../services/identity-sync/src/collections';
import { StripeStandIn } from '../../support/stripe-stand-in';
import { clerkRequests, stripeRequests, type E2eRequest } from './events';

const EVENTS = Number(process.env.COUNT_OPS_EVENTS ?? 50);

/** A command's shape: name, collection and the filter's field names (values left out). */
function describe(event: CommandStartedEvent): string {
  const command = event.command as Document;
  const name = event.commandName;
  const collection = String(command[name]);
  const shape = (filter: unknown): string =>
    filter && typeof filter === 'object' ? `{${Object.keys(filter as Document).join(',')}}` : '';
  switch (name) {
    case 'find':
      return `find ${collection} ${shape(command.filter)}`;
    case 'insert':
      return `insert ${collection} x${(command.documents as unknown[]).length}`;
    case 'update':
      return `update ${collection} ${(command.updates as Document[]).map((u) => `${shape(u.q)}${u.upsert ? ' upsert' : ''}`).join(' ')}`;
    case 'delete':
      return `delete ${collection} ${(command.deletes as Document[]).map((d) => shape(d.q)).join(' ')}`;
    case 'findAndModify':
      return `findAndModify ${collection} ${shape(command.query)}`;
    default:
      return `${name} ${collection}`;
  }
}

async function main(): Promise<void> {
  const ferret = process.env.MONGO_URL
    ? undefined
    : await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  const url = process.env.MONGO_URL ?? ferret!.url;
  const standIn = new StripeStandIn();
  standIn.setCustomer({ id: 'cus_demo', email: 'demo@example.com', metadata: {} });
  standIn.setSubscriptions('cus_demo', [{ id: 'sub_demo', status: 'active' }]);
  standIn.setCustomer({ id: 'cus_linked', email: 'linked@example.com', metadata: { workspaceId: 'org_linked' } });
  standIn.setSubscriptions('cus_linked', [{ id: 'sub_linked', status: 'active' }]);
  await standIn.start();
  const client = await MongoClient.connect(url, { monitorCommands: true });
  const db = client.db(`count_ops_${process.pid}`);
  const logger = createLogger({ service: 'count-ops', level: 'silent' });
  const inbox = inboxCollections(db);
  await ensureInboxIndexes({ inbox });
  await ensureBillingSyncIndexes(db);
  await ensureIdentitySyncIndexes(db);
  await db.collection('workspaces').insertOne({ _id: 'org_linked' } as unknown as Document);
  const owner = `count-ops:${process.pid}`;
  const billing = new BillingSyncService({
    collections: billingCollections(db),
    stripe: createStripeClient({
      stripeSecretKey: 'sk_test_standin',
      stripeApiBase: standIn.url,
      stripeTimeoutMs: 20_000,
    }),
    logger,
    clock: systemClock,
    owner,
    hooks: { onSubscriptionChanged: async () => {} },
    workspaceLockMs: 30_000,
    workspaceLockWaitMs: 10_000,
  });
  const identity = new IdentitySyncService({ collections: identityCollections(db), logger, clock: systemClock, owner });

  let counting = false;
  const tally = new Map<string, number>();
  client.on('commandStarted', (event) => {
    if (!counting) return;
    const key = describe(event);
    tally.set(key, (tally.get(key) ?? 0) + 1);
  });

  const run = async (
    label: string,
    provider: string,
    requests: E2eRequest[],
    handler: InboxEventHandler,
    type: (body: Document) => string,
  ): Promise<void> => {
    const events = requests.map((request) => {
      const payload = request.body.toString();
      return {
        provider,
        eventId: request.eventId,
        type: type(JSON.parse(payload) as Document),
        receivedAt: new Date(),
        payload,
      };
    });
    // The first events create collections and links; the rest are the steady state.
    const warm = Math.min(5, events.length - 1);
    for (const event of events.slice(0, warm))
      await applyInboxEvent({
        inbox,
        event,
        deliveryCount: 1,
        handler,
        owner,
        leaseMs: 30_000,
        clock: systemClock,
        logger,
      });
    tally.clear();
    counting = true;
    for (const event of events.slice(warm))
      await applyInboxEvent({
        inbox,
        event,
        deliveryCount: 1,
        handler,
        owner,
        leaseMs: 30_000,
        clock: systemClock,
        logger,
      });
    counting = false;
    const counted = events.length - warm;
    const total = [...tally.values()].reduce((sum, n) => sum + n, 0);
    console.log(`\n${label}: ${(total / counted).toFixed(2)} operations per event (${counted} events)`);
    for (const [key, n] of [...tally.entries()].sort((a, b) => b[1] - a[1]))
      console.log(`  ${(n / counted).toFixed(2).padStart(5)}  ${key}`);
  };

  const eventType = (body: Document): string => String(body.type);
  const linked = (requests: E2eRequest[]): E2eRequest[] =>
    requests.map((request) => {
      const body = JSON.parse(request.body.toString()) as { data: { object: Record<string, unknown> } };
      body.data.object.customer = 'cus_linked';
      return { ...request, body: Buffer.from(JSON.stringify(body)) };
    });
  await run(
    'Stripe, cus_demo (no workspace, as bench:e2e)',
    'stripe',
    stripeRequests('whsec_x', EVENTS + 5),
    (e) => billing.apply(e),
    eventType,
  );
  await run(
    'Stripe, linked customer (workspace synced)',
    'stripe',
    linked(stripeRequests('whsec_x', EVENTS + 5)),
    (e) => billing.apply(e),
    eventType,
  );
  const clerkRun = (label: string) =>
    run(
      label,
      'clerk',
      clerkRequests('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', EVENTS + 5),
      (e) => identity.apply(e),
      eventType,
    );
  await clerkRun('Clerk user.updated, first change of each user');
  // The same users again, newer: bench:e2e's 2,000 events cycle through 100 users, so most are of this kind.
  await clerkRun('Clerk user.updated, users this replica wrote a moment ago');

  await db.dropDatabase();
  await client.close();
  await standIn.stop();
  await ferret?.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
