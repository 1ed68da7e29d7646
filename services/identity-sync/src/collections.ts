import type { Collection, Db } from 'mongodb';
import { BatchedUpdater } from '@berth/store';

/**
 * Fields identity-sync keeps on every document it writes. The document's `_id` is the Clerk id (user, organization
 * or membership id), which is also copied into a named field (`clerkUserId`, …) for queries: the `_id` is what makes
 * "create if absent" race-free, since a second insert of the same `_id` fails on both MongoDB and FerretDB.
 */
export interface ClerkSyncedFields {
  _id: string;
  /** Clerk's `updated_at` of the change stored; a change is applied only if newer. */
  clerkUpdatedAt?: Date;
  /** Set once when Clerk deleted it; a deleted document is never changed again (Clerk ids are not reused). */
  deletedAt?: Date | null;
  /** When identity-sync last wrote it. */
  clerkSyncedAt?: Date;
}

/** A `users` document. */
export interface UserDocument extends ClerkSyncedFields {
  clerkUserId: string;
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  username?: string | null;
  imageUrl?: string | null;
  clerkCreatedAt?: Date | null;
}

/** A `workspaces` document, as far as identity-sync writes it (billing-sync writes `billing`). */
export interface WorkspaceDocument extends ClerkSyncedFields {
  clerkOrganizationId: string;
  name?: string;
  slug?: string | null;
  imageUrl?: string | null;
  maxAllowedMemberships?: number | null;
  clerkCreatedAt?: Date | null;
}

/** A `workspaceMembers` document: one Clerk organization membership. */
export interface WorkspaceMemberDocument extends ClerkSyncedFields {
  clerkMembershipId: string;
  /** The workspace `_id`, i.e. the Clerk organization id. */
  workspaceId?: string;
  /** The user `_id`, i.e. the Clerk user id. */
  userId?: string;
  role?: string;
  clerkCreatedAt?: Date | null;
}

/** The collections identity-sync writes. */
export interface IdentityCollections {
  users: Collection<UserDocument>;
  workspaces: Collection<WorkspaceDocument>;
  workspaceMembers: Collection<WorkspaceMemberDocument>;
  /** Each collection's group commit: the guarded upserts of events applied at once leave in one bulk write. */
  updates: {
    users: BatchedUpdater<UserDocument>;
    workspaces: BatchedUpdater<WorkspaceDocument>;
    workspaceMembers: BatchedUpdater<WorkspaceMemberDocument>;
  };
}

/** identity-sync's collections in a database. */
export function identityCollections(db: Db): IdentityCollections {
  const users = db.collection<UserDocument>('users');
  const workspaces = db.collection<WorkspaceDocument>('workspaces');
  const workspaceMembers = db.collection<WorkspaceMemberDocument>('workspaceMembers');
  return {
    users,
    workspaces,
    workspaceMembers,
    updates: {
      users: new BatchedUpdater(users),
      workspaces: new BatchedUpdater(workspaces),
      workspaceMembers: new BatchedUpdater(workspaceMembers),
    },
  };
}
