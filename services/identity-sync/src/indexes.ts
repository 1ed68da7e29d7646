import type { Db } from 'mongodb';
import { ensureInboxIndexes, inboxCollections } from '@berth/inbox';
import { ensureIndexes } from '@berth/store';
import { identityCollections } from './collections';

/**
 * Creates the indexes identity-sync needs: the inbox's, and members by workspace and by user (the member-limit job
 * counts a workspace's live members). Users, workspaces and members are found by `_id`, their Clerk id.
 */
export async function ensureIdentitySyncIndexes(db: Db): Promise<void> {
  const collections = identityCollections(db);
  await ensureInboxIndexes({ inbox: inboxCollections(db) });
  await ensureIndexes(collections.workspaceMembers, [
    { key: { workspaceId: 1, deletedAt: 1 }, name: 'workspaceId_deletedAt' },
    { key: { userId: 1 }, name: 'userId' },
  ]);
}
