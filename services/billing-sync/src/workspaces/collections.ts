import type { Collection, Db, ObjectId } from 'mongodb';
import { BatchedReader, type LeaseCollection, type LeaseDocument } from '@berth/store';
import type { BillingStatus, SubscriptionSummary } from '../sync/subscription-summary';

/** A workspace's billing state, written wholesale by each sync. */
export interface WorkspaceBilling {
  /** The Stripe customer the workspace is linked to. */
  customerId: string;
  subscriptions: SubscriptionSummary[];
  status: BillingStatus;
  /** When billing-sync read this state from Stripe. */
  syncedAt: Date;
}

/**
 * Which workspace a Stripe customer is linked to, keyed by the customer id: the lookup by customer is then one `_id`
 * read (workspaces are also indexed by `billing.customerId`, the fallback for a customer without a link). Written before the workspace's `billing` on each sync; a link is trusted only while the workspace's
 * `billing.customerId` still names the customer, so a relinked workspace is never found through its old customer.
 */
export interface CustomerLinkDocument {
  /** The Stripe customer id. */
  _id: string;
  /** The linked workspace's id; null when the customer was looked up and is linked to none (see `findWorkspaceByCustomer`). */
  workspaceId: string | ObjectId | null;
  linkedAt: Date;
}

/** The part of a `workspaces` document billing-sync reads and writes; identity-sync owns the rest. */
export interface WorkspaceDocument {
  /** The workspace id (the Clerk organization id for workspaces created by identity-sync). */
  _id: string | ObjectId;
  billing?: WorkspaceBilling;
}

/** A Stripe object copied into MongoDB, keyed by its Stripe id. */
export interface StripeObjectDocument {
  _id: string;
  /** When it was read from Stripe; a write never replaces a copy read later. */
  stripeFetchedAt: Date;
  [field: string]: unknown;
}

/** The collections billing-sync writes. */
export interface BillingCollections {
  workspaces: Collection<WorkspaceDocument>;
  /** Stripe customer → workspace links (see {@link CustomerLinkDocument}). */
  customers: Collection<CustomerLinkDocument>;
  /** Per-workspace sync locks, one lease document per workspace, `_id` `billing:<workspaceId>` (see `withWorkspaceLock`). */
  workspaceLocks: LeaseCollection;
  /** Lookups by `_id` of the events handled at once, group-committed: one `find` each for a burst. */
  reads: { customers: BatchedReader<CustomerLinkDocument>; workspaces: BatchedReader<WorkspaceDocument> };
  disputes: Collection<StripeObjectDocument>;
  refunds: Collection<StripeObjectDocument>;
  fraudWarnings: Collection<StripeObjectDocument>;
}

/** Collection names. */
export const BILLING_COLLECTION_NAMES = {
  workspaces: 'workspaces',
  customers: 'billingCustomers',
  workspaceLocks: 'workspaceLocks',
  disputes: 'billingDisputes',
  refunds: 'billingRefunds',
  fraudWarnings: 'fraudWarnings',
} as const;

/** billing-sync's collections in a database, and the group commit of their lookups by `_id`. */
export function billingCollections(db: Db): BillingCollections {
  const workspaces = db.collection<WorkspaceDocument>(BILLING_COLLECTION_NAMES.workspaces);
  const customers = db.collection<CustomerLinkDocument>(BILLING_COLLECTION_NAMES.customers);
  return {
    workspaces,
    customers,
    reads: { customers: new BatchedReader(customers), workspaces: new BatchedReader(workspaces) },
    workspaceLocks: db.collection<LeaseDocument>(BILLING_COLLECTION_NAMES.workspaceLocks),
    disputes: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.disputes),
    refunds: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.refunds),
    fraudWarnings: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.fraudWarnings),
  };
}
