import type { UpdateFilter } from 'mongodb';
import type { LeaseDocument } from '../leases/lease-types';
import { isDuplicateKeyError } from '../mongo-errors';
import type { Inbox, InboxEventDocument } from '../types';
import type { InsertResult } from './batched-inserter';

export type { InsertResult };

/**
 * The hot path's writes (record, claim, mark processed, release, failure), in one place so that every one of them
 * stays by `_id` alone: the only filter FerretDB 1.24 answers from an index (test/store/hot-path-explain.test.ts).
 */
/** A new row, through the inbox's group commit when it has one (`inboxCollections` gives it one). */
export function insertEventRow(inbox: Inbox, document: InboxEventDocument): Promise<InsertResult> {
  if (inbox.rowInserts) return inbox.rowInserts.insert(document);
  return insertOne(() => inbox.events.insertOne(document));
}

/** A first attempt's lease, through the inbox's group commit of them when it has one. */
export function insertLeaseDocument(inbox: Inbox, document: LeaseDocument): Promise<InsertResult> {
  if (inbox.leaseInserts) return inbox.leaseInserts.insert(document);
  return insertOne(() => inbox.leases.insertOne(document));
}

export async function updateEventRow(
  inbox: Inbox,
  id: string,
  update: UpdateFilter<InboxEventDocument>,
): Promise<boolean> {
  return (await inbox.events.updateOne({ _id: id }, update)).matchedCount === 1;
}

export async function updateLeaseDocument(
  inbox: Inbox,
  id: string,
  update: UpdateFilter<LeaseDocument>,
): Promise<boolean> {
  return (await inbox.leases.updateOne({ _id: id }, update)).matchedCount === 1;
}

export async function deleteLeaseDocument(inbox: Inbox, id: string): Promise<void> {
  await inbox.leases.deleteOne({ _id: id });
}

async function insertOne(insert: () => Promise<unknown>): Promise<InsertResult> {
  try {
    await insert();
    return 'inserted';
  } catch (error) {
    if (isDuplicateKeyError(error)) return 'duplicate';
    throw error;
  }
}
