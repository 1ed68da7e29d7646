import type { Collection, Db } from 'mongodb';
import type { WorkspaceBillingState } from './billing-queue.contract';

/** The billing view of a workspace (collection `workspaces`). */
export interface BillingWorkspaceDocument {
  _id: string;
  billing?: WorkspaceBillingState;
  deletedAt?: Date | null;
}

/** A member of a workspace (collection `workspaceMembers`). */
export interface WorkspaceMemberDocument {
  _id: string;
  workspaceId: string;
  userId: string;
  /** `owner` members are kept first when seats run out. */
  role: string;
  joinedAt: Date;
  /** Soft delete (identity-sync): a deleted member takes no seat. */
  deletedAt?: Date | null;
  suspended?: boolean;
  /** Why: `seat-limit` when this job suspended the member (only those are reactivated by it). */
  suspendedReason?: string | null;
  suspendedAt?: Date | null;
}

/** The collections the billing jobs use. */
export interface BillingCollections {
  workspaces: Collection<BillingWorkspaceDocument>;
  members: Collection<WorkspaceMemberDocument>;
}

/** The billing collections of a database. */
export function billingCollections(db: Db): BillingCollections {
  return {
    workspaces: db.collection<BillingWorkspaceDocument>('workspaces'),
    members: db.collection<WorkspaceMemberDocument>('workspaceMembers'),
  };
}
