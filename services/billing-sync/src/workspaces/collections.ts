import type { Collection, Db, ObjectId } from 'mongodb';
import type { LeaseDocument } from '@berth/inbox';
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
  /** Per-workspace sync locks, `billing:<workspaceId>#<generation>` (see `acquireLease` in @berth/inbox). */
  workspaceLocks: Collection<LeaseDocument>;
  disputes: Collection<StripeObjectDocument>;
  refunds: Collection<StripeObjectDocument>;
  fraudWarnings: Collection<StripeObjectDocument>;
}

/** Collection names. */
export const BILLING_COLLECTION_NAMES = {
  workspaces: 'workspaces',
  workspaceLocks: 'workspaceLocks',
  disputes: 'billingDisputes',
  refunds: 'billingRefunds',
  fraudWarnings: 'fraudWarnings',
} as const;

/** billing-sync's collections in a database. */
export function billingCollections(db: Db): BillingCollections {
  return {
    workspaces: db.collection<WorkspaceDocument>(BILLING_COLLECTION_NAMES.workspaces),
    workspaceLocks: db.collection<LeaseDocument>(BILLING_COLLECTION_NAMES.workspaceLocks),
    disputes: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.disputes),
    refunds: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.refunds),
    fraudWarnings: db.collection<StripeObjectDocument>(BILLING_COLLECTION_NAMES.fraudWarnings),
  };
}
