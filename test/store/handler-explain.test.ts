import { systemClock } from '@berth/contract';
/**
 * The handlers' own queries use an index too (the sibling of hot-path-explain.test.ts, which covers the inbox): a
 * Stripe customer's workspace found through its link, the workspace lock taken and released, the workspace's billing
 * written, and a Clerk change and deletion applied through `upsertIfNewer`. The test runs those steps with the
 * driver's command monitoring on and explains every filter they sent: on the embedded store PostgreSQL's plan must scan
 * an index, never the table; with BERTH_TEST_MONGO_URL, MongoDB's plan must be an index scan.
 */
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import {
  billingCollections,
  createStripeClient,
  ensureBillingSyncIndexes,
  type WorkspaceDocument,
} from '@berth/billing-sync';
import { findWorkspaceByCustomer, findWorkspaceById } from '@berth/billing-sync/src/workspaces/find-workspace';
import { withWorkspaceLock } from '@berth/billing-sync/src/workspaces/workspace-lock';
import { syncWorkspaceBilling } from '@berth/billing-sync/src/sync/sync-workspace-billing';
import { applyClerkChange, ensureIdentitySyncIndexes, identityCollections, softDelete } from '@berth/identity-sync';
import { StripeStandIn } from '../support/stripe-stand-in';
import { expectQueriesIndexed, monitorQueries, queriesOf } from './support/query-plans';

const mongoUrl = process.env.BERTH_TEST_MONGO_URL;
const onMongo = mongoUrl !== undefined;
const clock = systemClock;

let ferret: FerretDbHandle | undefined;
let client: MongoClient;
let db: Db;
let standIn: StripeStandIn;
let commands: CommandStartedEvent[] = [];

beforeAll(async () => {
  if (!mongoUrl) ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  standIn = new StripeStandIn();
  await standIn.start();
  client = await MongoClient.connect(mongoUrl ?? ferret!.url, { monitorCommands: true });
  db = client.db(`handler_explain_${process.pid}_${Date.now().toString(36)}`);
  await ensureBillingSyncIndexes(db);
  await ensureIdentitySyncIndexes(db);
  const billing = billingCollections(db);
  const identity = identityCollections(db);
  // Rows enough that a planner without an index would rather scan them.
  const ids = Array.from({ length: 300 }, (_, index) => index);
  await billing.workspaces.insertMany(
    ids.map(
      (index) =>
        ({
          _id: `org_${index}`,
          billing: {
            customerId: `cus_${index}`,
            subscriptions: [],
            status: 'none',
            syncedAt: new Date(),
          },
        }) as WorkspaceDocument,
    ),
  );
  await billing.customers.insertMany(
    ids.map((index) => ({ _id: `cus_${index}`, workspaceId: `org_${index}`, linkedAt: new Date() })),
  );
  await billing.workspaceLocks.insertMany(
    ids.map((index) => ({
      _id: `billing:org_${index}`,
      owner: 'seed',
      takenAt: new Date(0),
      until: new Date(0),
      releasedAt: new Date(0),
    })),
  );
  await identity.users.insertMany(
    ids.map((index) => ({
      _id: `user_${index}`,
      clerkUserId: `user_${index}`,
      clerkUpdatedAt: new Date(1000),
      deletedAt: null,
    })),
  );
  commands = monitorQueries(client, db);
});

afterAll(async () => {
  if (mongoUrl) await db?.dropDatabase();
  await client?.close();
  await standIn?.stop();
  await ferret?.stop();
});

async function expectEveryQueryIndexed(): Promise<void> {
  const queries = commands.flatMap(queriesOf);
  expect(queries.length).toBeGreaterThan(3);
  await expectQueriesIndexed(db, onMongo, queries);
}

describe('the handlers query through an index', () => {
  it("billing-sync: the customer's workspace through its link, the workspace lock, the billing write, a workspace by id", async () => {
    const collections = billingCollections(db);
    const stripe = createStripeClient({
      stripeSecretKey: 'sk_test_standin',
      stripeApiBase: standIn.url,
      stripeTimeoutMs: 5000,
    });
    standIn.setSubscriptions('cus_7', [{ id: 'sub_7', status: 'active' }]);
    commands.length = 0;
    const workspace = await findWorkspaceByCustomer(
      { workspaces: collections.workspaces, customers: collections.customers, reads: collections.reads, clock },
      'cus_7',
    );
    expect(workspace).toMatchObject({ _id: 'org_7' });
    const lock = {
      locks: collections.workspaceLocks,
      workspaceId: 'org_7',
      owner: 'replica-1',
      leaseMs: 10_000,
      waitMs: 1000,
      clock,
    };
    const billing = await withWorkspaceLock(lock, () =>
      syncWorkspaceBilling({
        workspaces: collections.workspaces,
        customers: collections.customers,
        stripe,
        workspace: workspace!,
        customerId: 'cus_7',
        clock,
      }),
    );
    expect(billing).toMatchObject({ status: 'active' });
    // A checkout's client_reference_id, or a customer's metadata.workspaceId, names the workspace by id; lookups
    // issued at once leave as one `$in`.
    const [first, second, third] = await Promise.all(
      ['org_8', 'org_9', 'org_10'].map((id) => findWorkspaceById(collections.reads.workspaces, id)),
    );
    expect([first, second, third]).toMatchObject([{ _id: 'org_8' }, { _id: 'org_9' }, { _id: 'org_10' }]);
    await expectEveryQueryIndexed();
  });

  it('identity-sync: a Clerk change applied to an existing and to a new document, a stale one, and deletions', async () => {
    const collections = identityCollections(db);
    const change = {
      collection: collections.users,
      updates: collections.updates.users,
      clock,
      fields: { email: 'a@example.com' },
    };
    commands.length = 0;
    expect(await applyClerkChange({ ...change, id: 'user_7', updatedAt: new Date(2000) })).toBe('updated');
    expect(await applyClerkChange({ ...change, id: 'user_new', updatedAt: new Date(2000) })).toBe('inserted');
    expect(await applyClerkChange({ ...change, id: 'user_7', updatedAt: new Date(1500) })).toBe('stale');
    const deleteUser = (id: string) =>
      softDelete({
        collection: collections.users,
        updates: collections.updates.users,
        clock,
        id,
        deletedAt: new Date(3000),
        tombstoneFields: { clerkUserId: id },
      });
    expect(await deleteUser('user_7')).toBe('deleted');
    expect(await deleteUser('user_gone')).toBe('tombstoned');
    await expectEveryQueryIndexed();
  });
});
