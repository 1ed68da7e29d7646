import type { UpdateFilter } from 'mongodb';
import type { LeaseDocument } from '../leases/lease-types';
import { isDuplicateKeyError } from '../mongo-errors';
import type { Inbox, InboxEventDocument } from '../types';
import type { GroupInsertResult } from './group-commit';

/**
 * The hot path's writes (record, claim, mark processed, release, failure), through the inbox's group commit when it
 * has one ({@link inboxCollections} gives it one), else straight to the collection. Every update is by `_id` alone.
 */
export function insertEventRow(inbox: Inbox, document: InboxEventDocument): Promise<GroupInsertResult> {
  return inbox.writes ? inbox.writes.events.insert(document) : insertOne(() => inbox.events.insertOne(document));
}

export function insertLeaseDocument(inbox: Inbox, document: LeaseDocument): Promise<GroupInsertResult> {
  return inbox.writes ? inbox.writes.leases.insert(document) : insertOne(() => inbox.leases.insertOne(document));
}

export async function updateEventRow(inbox: Inbox, id: string, update: UpdateFilter<InboxEventDocument>): Promise<boolean> {
  if (inbox.writes) return inbox.writes.events.update(id, update);
  return (await inbox.events.updateOne({ _id: id }, update)).matchedCount === 1;
}

export async function updateLeaseDocument(inbox: Inbox, id: string, update: UpdateFilter<LeaseDocument>): Promise<boolean> {
  if (inbox.writes) return inbox.writes.leases.update(id, update);
  return (await inbox.leases.updateOne({ _id: id }, update)).matchedCount === 1;
}

async function insertOne(insert: () => Promise<unknown>): Promise<GroupInsertResult> {
  try {
    await insert();
    return 'inserted';
  } catch (error) {
    if (isDuplicateKeyError(error)) return 'duplicate';
    throw error;
  }
}
