import { ManualClock } from '@berth/contract/testing';
import { MongoClient, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { billingCollections, type WorkspaceMemberDocument } from './billing.collections';
import type { WorkspaceBillingState } from './billing-queue.contract';
import { WorkspaceMemberLimitService } from './workspace-member-limit.service';

let ferret: FerretDbHandle;
let client: MongoClient;
let db: Db;
const now = new Date('2026-11-30T08:00:00Z');

beforeAll(async () => {
  ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  client = await MongoClient.connect(ferret.url);
  db = client.db(`member_limit_${process.pid}`);
});
afterAll(async () => {
  await client?.close();
  await ferret?.stop();
});

async function seed(
  workspaceId: string,
  billing: WorkspaceBillingState | undefined,
  members: Partial<WorkspaceMemberDocument>[],
): Promise<void> {
  const { workspaces, members: memberCollection } = billingCollections(db);
  await workspaces.insertOne({ _id: workspaceId, ...(billing ? { billing } : {}) });
  await memberCollection.insertMany(
    members.map((member, index) => ({
      _id: `${workspaceId}-m${index}`,
      workspaceId,
      userId: `u${index}`,
      role: 'member',
      joinedAt: new Date(Date.UTC(2026, 0, 1 + index)),
      ...member,
    })),
  );
}

async function suspendedOf(workspaceId: string): Promise<string[]> {
  const members = await billingCollections(db).members.find({ workspaceId, suspended: true }).toArray();
  return members.map((member) => member.userId).sort();
}

const seats = (quantity: number): WorkspaceBillingState => ({
  subscriptions: [{ id: 'sub_1', status: 'active', items: [{ priceId: 'seat', quantity }] }],
});

describe('WorkspaceMemberLimitService', () => {
  const service = () => new WorkspaceMemberLimitService(db, new ManualClock(now), 1);

  it('suspends the members beyond the seats paid for, owners first and then the earliest kept; twice changes nothing', async () => {
    await seed('ws-a', seats(2), [{}, {}, { role: 'owner' }, {}, { deletedAt: now }]);
    expect(await service().applyMemberLimit('ws-a')).toEqual({ seatLimit: 2, suspended: 2, reactivated: 0 });
    // Kept: u2 (owner) and u0 (earliest); u4 is deleted and takes no seat.
    expect(await suspendedOf('ws-a')).toEqual(['u1', 'u3']);
    const suspended = await billingCollections(db).members.findOne({ _id: 'ws-a-m1' });
    expect(suspended).toMatchObject({ suspended: true, suspendedReason: 'seat-limit', suspendedAt: now });
    expect(await service().applyMemberLimit('ws-a')).toEqual({ seatLimit: 2, suspended: 0, reactivated: 0 });
    expect(await suspendedOf('ws-a')).toEqual(['u1', 'u3']);
  });

  it('reactivates members it suspended when seats come back, not those suspended for another reason', async () => {
    await seed('ws-b', seats(1), [{}, {}, { suspended: true, suspendedReason: 'abuse' }]);
    await service().applyMemberLimit('ws-b');
    expect(await suspendedOf('ws-b')).toEqual(['u1', 'u2']);
    await billingCollections(db).workspaces.updateOne({ _id: 'ws-b' }, { $set: { billing: seats(5) } });
    expect(await service().applyMemberLimit('ws-b')).toEqual({ seatLimit: 5, suspended: 0, reactivated: 1 });
    expect(await suspendedOf('ws-b')).toEqual(['u2']);
  });

  it('applies the free plan when no subscription is live, and nothing without billing state', async () => {
    await seed('ws-c', { subscriptions: [{ id: 'sub_1', status: 'canceled', items: [{ quantity: 10 }] }] }, [
      {},
      {},
      {},
    ]);
    expect(await service().applyMemberLimit('ws-c')).toEqual({ seatLimit: 1, suspended: 2, reactivated: 0 });
    await seed('ws-d', undefined, [{}, {}]);
    expect(await service().applyMemberLimit('ws-d')).toEqual({ suspended: 0, reactivated: 0 });
    expect(await suspendedOf('ws-d')).toEqual([]);
  });
});
