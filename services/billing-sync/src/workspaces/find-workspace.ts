import { ObjectId, type Collection } from 'mongodb';
import type { Clock } from '@berth/contract';
import { isDuplicateKeyError, type BatchedReader } from '@berth/store';
import type { BillingCollections, CustomerLinkDocument, WorkspaceDocument } from './collections';

/**
 * The workspace with this id, or null: looked up as a string `_id` (a Clerk organization id, the common case: one
 * read), then, for a hex id, as an ObjectId.
 */
export async function findWorkspaceById(
  workspaces: BatchedReader<WorkspaceDocument>,
  id: string,
): Promise<WorkspaceDocument | null> {
  const byString = await workspaces.findById(id);
  if (byString || !/^[0-9a-f]{24}$/i.test(id)) return byString;
  return workspaces.findById(new ObjectId(id));
}

/** The collections {@link findWorkspaceByCustomer} reads. */
export interface CustomerLookup {
  workspaces: Collection<WorkspaceDocument>;
  customers: Collection<CustomerLinkDocument>;
  /** Their lookups by `_id`, group-committed (`BillingCollections.reads`). */
  reads: BillingCollections['reads'];
  clock: Clock;
}

/**
 * The workspace already linked to this Stripe customer (its `billing.customerId`), or null. Read by `_id` through
 * the customer's link document, then the workspace by `_id`; a link whose workspace names another customer now is
 * stale and ignored. Without a link document (billing written before links were kept) the workspaces are queried by
 * `billing.customerId` once, and the link is written, so the next lookup of that customer is by `_id`; when that
 * query finds none either, a link naming no workspace (`workspaceId: null`) is written, so the next event of a
 * customer linked to nothing costs one `_id` lookup, not that query again.
 * Linking the customer later (`linkCustomer`, before its billing is written) replaces it.
 */
export async function findWorkspaceByCustomer(
  collections: CustomerLookup,
  customerId: string,
): Promise<WorkspaceDocument | null> {
  const link = await collections.reads.customers.findById(customerId);
  if (link) {
    if (link.workspaceId === null) return null;
    const workspace = await collections.reads.workspaces.findById(link.workspaceId);
    return workspace?.billing?.customerId === customerId ? workspace : null;
  }
  const workspace = await collections.workspaces.findOne({ 'billing.customerId': customerId });
  if (workspace) await linkCustomer(collections.customers, customerId, workspace._id, collections.clock.now());
  else await markUnlinked(collections.customers, customerId, collections.clock.now());
  return workspace;
}

/**
 * Records that a customer is linked to no workspace, by an insert: a link written meanwhile by a sync (an upsert)
 * is never overwritten by it, the insert fails on its `_id` instead.
 */
async function markUnlinked(customers: Collection<CustomerLinkDocument>, customerId: string, at: Date): Promise<void> {
  try {
    await customers.insertOne({ _id: customerId, workspaceId: null, linkedAt: at });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}

/** Writes (or moves) the link of a Stripe customer to a workspace: an upsert by `_id`. */
export async function linkCustomer(
  customers: Collection<CustomerLinkDocument>,
  customerId: string,
  workspaceId: string | ObjectId,
  linkedAt: Date,
): Promise<void> {
  await customers.updateOne({ _id: customerId }, { $set: { workspaceId, linkedAt } }, { upsert: true });
}
