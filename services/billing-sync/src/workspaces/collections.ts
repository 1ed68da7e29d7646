import type { Collection, Db, ObjectId } from 'mongodb';
import { VersionLocks, type LeaseDocument } from '@berth/inbox';
import type { BillingStatus, SubscriptionSummary } from '../sync/subscription-summary';

/** A workspace's billing state, written wholesale by each sync. */
export interface WorkspaceBilling {
  /** The Stripe customer the workspace is linked to. */
  customerId: string;
  subscriptions: SubscriptionSummary[];
  status: BillingStatus;
  /** When billing-sync read this state from Stripe. */
  syncedAt: Date;
  /**
   * The workspace lock generation this state was written under: the next sync's `generationHint`, so it finds the
   * lock by `_id` (see `withWorkspaceLock`). Absent on state written before it was kept.
   */
  lockGeneration?: number;
}

/**
 * Which workspace a Stripe customer is linked to, keyed by the customer id: the lookup by customer is then an `_id`
 * lookup, the only filter FerretDB 1.24 answers through an index (`billing.customerId` scans every workspace there).
 * Written before the workspace's `billing` on each sync; a link is trusted only while the workspace's
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
  /** Per-workspace sync locks, `billing:<workspaceId>#<generation>` (see `acquireLease` in @berth/inbox). */
  workspaceLocks: Collection<LeaseDocument>;
  /** Write leases of the Stripe object copies (`upsertIfNewer`), one per write in flight. */
  objectLocks: Collection<LeaseDocument>;
  /** `objectLocks` with this process's group commit of its inserts and prune schedule (see `upsertIfNewer`). */
  objectVersionLocks: VersionLocks;
  disputes: Collection<StripeObjectDocument>;
  refunds: Collection<StripeObjectDocument>;
  fraudWarnings: Collection<StripeObjectDocument>;
}

/** Collection names. */
export const BILLING_COLLECTION_NAMES = {
  workspaces: 'workspaces',
  customers: 'billingCustomers',
  workspaceLocks: 'workspaceLocks',
  objectLocks: 'stripeObjectLocks',
  disputes: 'billingDisputes',
  refunds: 'billingRefunds',
  fraudWarnings: 'fraudWarnings',
} as const;

/** billing-sync's collections in a database. */
export function billingCollections(db: Db): BillingCollections {
  const objectLocks = db.collection<LeaseDocument>(BILLING_COLLECTION_NAMES.objectLocks);
  return {
    workspaces: db.collection<WorkspaceDocument>(BILLING_COLLECTION_NAMES.workspaces),
    customers: db.collection<CustomerLinkDocument>(BILLING_COLLECTION_NAMES.customers),
    workspaceLocks: db.collection<LeaseDocument>(BILLING_COLLECTION_NAMES.workspaceLocks),
    objectLocks,
    objectVersionLocks: new VersionLocks(objectLocks),
    disputes: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.disputes),
    refunds: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.refunds),
    fraudWarnings: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.fraudWarnings),
  };
}
