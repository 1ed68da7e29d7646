import { Inject, Injectable } from '@nestjs/common';
import type { Collection } from 'mongodb';
import type { InboxHandlerEvent } from '@berth/inbox';
import type { BatchedUpdater } from '@berth/store';
import { applyClerkChange } from './apply/apply-clerk-change';
import { softDelete } from './apply/soft-delete';
import {
  clerkDeletedSchema,
  clerkMembershipSchema,
  clerkOrganizationSchema,
  clerkUserSchema,
  membershipFields,
  organizationFields,
  userFields,
} from './clerk/clerk-entities';
import {
  classifyClerkEvent,
  clerkEnvelopeSchema,
  parseOrGiveUp,
  type ClerkEntity,
  type ClerkEnvelope,
} from './clerk/clerk-event';
import type { ClerkSyncedFields } from './collections';
import { IDENTITY_SYNC_RUNTIME, type IdentitySyncRuntime } from './runtime';

/**
 * Applies one Clerk event to `users`, `workspaces` or `workspaceMembers`: a change only if it is newer than the
 * stored one (`updated_at` vs `clerkUpdatedAt`), deletions as soft deletes that are final.
 */
@Injectable()
export class IdentitySyncService {
  constructor(@Inject(IDENTITY_SYNC_RUNTIME) private readonly runtime: IdentitySyncRuntime) {}

  /** Handles an inbox event of provider `clerk`; throws to have it retried. */
  async apply(event: InboxHandlerEvent): Promise<void> {
    const envelope = parseOrGiveUp(clerkEnvelopeSchema, event.body, 'Clerk event');
    const change = classifyClerkEvent(event.type);
    if (change.action === 'ignore') {
      this.runtime.logger.info({ type: event.type }, 'Clerk event type not handled: nothing to apply');
      return;
    }
    if (change.action === 'delete') {
      await this.delete(change.entity, envelope, event.receivedAt);
      return;
    }
    await this.upsert(change.entity, envelope);
  }

  private async upsert(entity: ClerkEntity, envelope: ClerkEnvelope): Promise<void> {
    const { clock, logger } = this.runtime;
    const change = this.changeOf(entity, envelope.data);
    const result = await applyClerkChange({
      ...change,
      clock,
    });
    const details = { entity, clerkId: change.id, clerkUpdatedAt: change.updatedAt, result };
    if (result === 'stale')
      logger.info(
        details,
        `Clerk ${entity} change is not newer than the stored one, or it is deleted: nothing changed`,
      );
    else logger.info(details, `Clerk ${entity} change applied`);
  }

  /** Validates a created/updated payload and says where it goes and what it writes. */
  private changeOf(entity: ClerkEntity, data: unknown): ClerkDocumentChange {
    const { collections } = this.runtime;
    switch (entity) {
      case 'user': {
        const user = parseOrGiveUp(clerkUserSchema, data, 'Clerk user');
        return {
          ...syncedTarget(collections.users, collections.updates.users),
          id: user.id,
          updatedAt: new Date(user.updated_at),
          fields: userFields(user),
        };
      }
      case 'organization': {
        const organization = parseOrGiveUp(clerkOrganizationSchema, data, 'Clerk organization');
        return {
          ...syncedTarget(collections.workspaces, collections.updates.workspaces),
          id: organization.id,
          updatedAt: new Date(organization.updated_at),
          fields: organizationFields(organization),
        };
      }
      case 'membership': {
        const membership = parseOrGiveUp(clerkMembershipSchema, data, 'Clerk organization membership');
        return {
          ...syncedTarget(collections.workspaceMembers, collections.updates.workspaceMembers),
          id: membership.id,
          updatedAt: new Date(membership.updated_at),
          fields: membershipFields(membership),
        };
      }
    }
  }

  private async delete(entity: ClerkEntity, envelope: ClerkEnvelope, receivedAt: Date): Promise<void> {
    const { collections, clock, logger } = this.runtime;
    const deleted = parseOrGiveUp(clerkDeletedSchema, envelope.data, `deleted Clerk ${entity}`);
    const deletedAt = envelope.timestamp !== undefined ? new Date(envelope.timestamp) : receivedAt;
    const target = {
      user: {
        ...syncedTarget(collections.users, collections.updates.users),
        tombstoneFields: { clerkUserId: deleted.id },
      },
      organization: {
        ...syncedTarget(collections.workspaces, collections.updates.workspaces),
        tombstoneFields: { clerkOrganizationId: deleted.id },
      },
      membership: {
        ...syncedTarget(collections.workspaceMembers, collections.updates.workspaceMembers),
        tombstoneFields: {
          clerkMembershipId: deleted.id,
          workspaceId: deleted.organization?.id,
          userId: deleted.public_user_data?.user_id,
        },
      },
    }[entity];
    const result = await softDelete({
      collection: target.collection,
      updates: target.updates,
      id: deleted.id,
      deletedAt,
      tombstoneFields: target.tombstoneFields,
      clock,
    });
    logger.info(
      { entity, clerkId: deleted.id, deletedAt, result },
      result === 'already_deleted' ? `Clerk ${entity} was already deleted` : `Clerk ${entity} deleted (soft)`,
    );
  }
}

/** Where a created/updated change goes and what it writes. */
interface ClerkDocumentChange {
  collection: Collection<ClerkSyncedFields>;
  updates: BatchedUpdater<ClerkSyncedFields>;
  id: string;
  updatedAt: Date;
  fields: Record<string, unknown>;
}

/** A collection and its group commit, viewed through the fields every Clerk-synced document has. */
function syncedTarget<T extends ClerkSyncedFields>(
  collection: Collection<T>,
  updates: BatchedUpdater<T>,
): { collection: Collection<ClerkSyncedFields>; updates: BatchedUpdater<ClerkSyncedFields> } {
  return {
    collection: collection as unknown as Collection<ClerkSyncedFields>,
    updates: updates as unknown as BatchedUpdater<ClerkSyncedFields>,
  };
}
