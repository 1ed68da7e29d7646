import type { Filter } from 'mongodb';
import { OUTBOX_FIELD, type OutboxCollection, type OutboxDocument } from './outbox-types';

/**
 * Selects the documents with at least one pending entry: `_outbox.0` exists exactly when the array is non-empty
 * (absent, null and `[]` do not match). For counting and inspection.
 */
export const PENDING_OUTBOX_FILTER: Filter<OutboxDocument> = Object.freeze({
  [`${OUTBOX_FIELD}.0`]: { $exists: true },
});

/** The path the relay scans by: the creation time of each document's oldest pending entry. */
export const OUTBOX_SCAN_PATH = `${OUTBOX_FIELD}.0.createdAt`;

/**
 * The same documents as {@link PENDING_OUTBOX_FILTER}, as a range on {@link OUTBOX_SCAN_PATH}: on MongoDB that
 * range is a tight scan of the outbox index, where `$exists` would walk every document without entries (indexed
 * as null). Every entry has a `createdAt`, so both select the same documents.
 */
export function pendingOutboxScanFilter(): Filter<OutboxDocument> {
  return { [OUTBOX_SCAN_PATH]: { $gte: new Date(0) } };
}

/** The name of the index {@link ensureOutboxIndex} creates. */
export const OUTBOX_INDEX_NAME = 'outbox_pending';

/**
 * Indexes each document's oldest pending entry time, so the relay finds pending documents, oldest first, without
 * reading the whole business collection. Idempotent; call it at start for every collection the relay watches (as
 * `db.collection<OutboxDocument>(name)`).
 */
export async function ensureOutboxIndex(collection: OutboxCollection): Promise<void> {
  await collection.createIndex({ [OUTBOX_SCAN_PATH]: 1 }, { name: OUTBOX_INDEX_NAME });
}
