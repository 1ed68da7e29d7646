/**
 * Issue 2: "Clerk updates delivered newest-first: the older one changes nothing. A deletion followed by a late
 * update: the row stays deleted."
 *
 * Each event goes through the gateway (Svix-signed) and the test waits until identity-sync has processed it before
 * sending the next, so the delivery order is the one written here. "Changes nothing" is checked field for field:
 * the document after the late event equals the document before it (its `clerkSyncedAt` included), and the late
 * event is processed (not left to retry, not set aside).
 */
import { waitFor } from '@berth/local-infra/testing';
import { randomUUID } from 'node:crypto';
import type { Collection, Document } from 'mongodb';
import type { ClerkEventBody } from '../support/webhook-senders';
import { startMesh, type Mesh } from '../support/mesh';

const run = randomUUID().slice(0, 8);
/** Clerk times of the changes below: T(1) < T(2) < … (ms). */
const BASE = Date.now() - 60 * 60 * 1000;
const T = (n: number): number => BASE + n * 1000;
let mesh: Mesh;
let sent = 0;

beforeAll(async () => {
  mesh = await startMesh({ name: 'webhooks_clerk_ordering', services: ['gateway', 'identity-sync'] });
}, 180_000);
afterAll(async () => {
  await mesh?.stop();
}, 60_000);

/** Sends one Clerk event through the gateway and waits until identity-sync has processed it. */
async function deliver(event: ClerkEventBody): Promise<void> {
  sent += 1;
  const msgId = `msg_order_${run}_${sent}`;
  const answer = await mesh.sender.sendClerk(msgId, event);
  expect(answer.status).toBe(200);
  const row = await waitFor(() => mesh.inbox.events.findOne({ _id: `clerk:${msgId}` }), {
    what: `clerk:${msgId} (${event.type}) processed`,
    timeoutMs: 30_000,
    intervalMs: 100,
    until: (found) => found?.processedAt != null || found?.abandonedAt != null,
  });
  expect(row).toMatchObject({ processedAt: expect.any(Date), abandonedAt: null, lastError: null, attempts: 1 });
}

function userEvent(
  type: 'user.created' | 'user.updated',
  id: string,
  updatedAt: number,
  firstName: string,
): ClerkEventBody {
  return {
    type,
    timestamp: updatedAt,
    data: {
      id,
      object: 'user',
      first_name: firstName,
      last_name: 'Order',
      email_addresses: [],
      created_at: T(1),
      updated_at: updatedAt,
    },
  };
}

function collection(name: 'users' | 'workspaces' | 'workspaceMembers'): Collection<Document> {
  return mesh.db.collection(name);
}

describe('Clerk changes applied only when newer; deletions final (through the gateway)', () => {
  it('user updates delivered newest-first: the older ones change nothing', async () => {
    const id = `user_order_${run}_a`;
    await deliver(userEvent('user.updated', id, T(3), 'Third'));
    const newest = await collection('users').findOne({ _id: id as never });
    expect(newest).toMatchObject({ firstName: 'Third', clerkUpdatedAt: new Date(T(3)) });

    await deliver(userEvent('user.updated', id, T(2), 'Second'));
    expect(await collection('users').findOne({ _id: id as never })).toEqual(newest);
    await deliver(userEvent('user.created', id, T(1), 'First'));
    expect(await collection('users').findOne({ _id: id as never })).toEqual(newest);
    // The same time as the stored change is not newer either.
    await deliver(userEvent('user.updated', id, T(3), 'Third, again'));
    expect(await collection('users').findOne({ _id: id as never })).toEqual(newest);

    expect(mesh.service('identity-sync').logged('Clerk user change applied', { clerkId: id })).toHaveLength(1);
    expect(mesh.service('identity-sync').logged(/not newer/, { clerkId: id })).toHaveLength(3);
  }, 120_000);

  it('organization updates delivered newest-first: the older one changes nothing', async () => {
    const id = `org_order_${run}`;
    const organization = (updatedAt: number, name: string): ClerkEventBody['data'] => ({
      id,
      object: 'organization',
      name,
      slug: name.toLowerCase(),
      created_at: T(1),
      updated_at: updatedAt,
    });
    await deliver({ type: 'organization.updated', timestamp: T(5), data: organization(T(5), 'Newest') });
    const newest = await collection('workspaces').findOne({ _id: id as never });
    expect(newest).toMatchObject({ name: 'Newest', clerkUpdatedAt: new Date(T(5)) });
    await deliver({ type: 'organization.updated', timestamp: T(4), data: organization(T(4), 'Older') });
    await deliver({ type: 'organization.created', timestamp: T(1), data: organization(T(1), 'Oldest') });
    expect(await collection('workspaces').findOne({ _id: id as never })).toEqual(newest);
  }, 120_000);

  it('user deleted, then a late update (newer or older than the deletion): the row stays deleted, unchanged', async () => {
    const id = `user_order_${run}_b`;
    await deliver(userEvent('user.created', id, T(1), 'Alive'));
    await deliver({ type: 'user.deleted', timestamp: T(5), data: { id, object: 'user', deleted: true } });
    const deleted = await collection('users').findOne({ _id: id as never });
    expect(deleted).toMatchObject({ firstName: 'Alive', deletedAt: new Date(T(5)) });

    // A retry of an update Clerk emitted after the deletion (its updated_at is newer than the deletion).
    await deliver(userEvent('user.updated', id, T(6), 'Zombie'));
    expect(await collection('users').findOne({ _id: id as never })).toEqual(deleted);
    // An update older than the deletion, delivered late.
    await deliver(userEvent('user.updated', id, T(4), 'Late'));
    expect(await collection('users').findOne({ _id: id as never })).toEqual(deleted);
    // The deletion delivered again (another Svix message for it) keeps the first deletion's time.
    await deliver({ type: 'user.deleted', timestamp: T(7), data: { id, object: 'user', deleted: true } });
    expect(await collection('users').findOne({ _id: id as never })).toEqual(deleted);
  }, 120_000);

  it('membership deleted before a late update: the row stays deleted', async () => {
    const id = `orgmem_order_${run}`;
    const membership = (updatedAt: number, role: string): ClerkEventBody['data'] => ({
      id,
      object: 'organization_membership',
      role,
      organization: { id: `org_order_${run}` },
      public_user_data: { user_id: `user_order_${run}_a` },
      created_at: T(1),
      updated_at: updatedAt,
    });
    await deliver({ type: 'organizationMembership.created', timestamp: T(1), data: membership(T(1), 'org:member') });
    await deliver({ type: 'organizationMembership.deleted', timestamp: T(3), data: membership(T(2), 'org:member') });
    const deleted = await collection('workspaceMembers').findOne({ _id: id as never });
    expect(deleted).toMatchObject({ role: 'org:member', deletedAt: new Date(T(3)), workspaceId: `org_order_${run}` });
    await deliver({ type: 'organizationMembership.updated', timestamp: T(4), data: membership(T(4), 'org:admin') });
    expect(await collection('workspaceMembers').findOne({ _id: id as never })).toEqual(deleted);
  }, 120_000);
});
