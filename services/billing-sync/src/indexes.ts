import type { Db } from 'mongodb';
import { ensureInboxIndexes, inboxCollections } from '@berth/inbox';
import { ensureIndexes } from '@berth/store';
import { billingCollections } from './workspaces/collections';

/**
 * Creates the indexes billing-sync reads through: the inbox's, and workspaces by Stripe customer (the fallback of a
 * customer without a link document; links are read by `_id`). The workspace locks need only `_id`.
 */
export async function ensureBillingSyncIndexes(db: Db): Promise<void> {
  const collections = billingCollections(db);
  await ensureInboxIndexes({ inbox: inboxCollections(db) });
  await ensureIndexes(collections.workspaces, [{ key: { 'billing.customerId': 1 }, name: 'billing_customerId' }]);
}
