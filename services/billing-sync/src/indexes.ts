import type { Db } from 'mongodb';
import { ensureIndexes, ensureInboxIndexes, ensureLeaseIndexes, inboxCollections } from '@berth/inbox';
import { billingCollections } from './workspaces/collections';

/** Creates the indexes billing-sync reads through: the inbox's, the lock's, and workspaces by Stripe customer (the fallback of a customer without a link document; links are read by `_id`). */
export async function ensureBillingSyncIndexes(db: Db): Promise<void> {
  const collections = billingCollections(db);
  await ensureInboxIndexes({ inbox: inboxCollections(db) });
  await ensureLeaseIndexes({ leases: collections.workspaceLocks });
  await ensureLeaseIndexes({ leases: collections.objectLocks });
  await ensureIndexes(collections.workspaces, [{ key: { 'billing.customerId': 1 }, name: 'billing_customerId' }]);
}
