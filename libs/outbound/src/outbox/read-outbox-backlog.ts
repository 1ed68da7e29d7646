import { OUTBOX_SCAN_PATH, PENDING_OUTBOX_FILTER, pendingOutboxScanFilter } from './outbox-index';
import { OUTBOX_FIELD, type OutboxCollection, type OutboxEntry } from './outbox-types';

/** What waits in one collection's outbox. */
export interface OutboxBacklogReading {
  collection: string;
  /** Documents with at least one pending entry. */
  pendingDocuments: number;
  /** `createdAt` of the oldest pending entry (first of its document); null when nothing is pending. */
  oldestPendingAt: Date | null;
}

/**
 * Reads each collection's outbox backlog: a count and one indexed lookup of the oldest pending entry. A count that
 * keeps rising means the relay is down or behind; an oldest entry that keeps ageing, an entry it cannot send.
 */
export async function readOutboxBacklog(collections: readonly OutboxCollection[]): Promise<OutboxBacklogReading[]> {
  return Promise.all(
    collections.map(async (collection) => {
      const [pendingDocuments, oldest] = await Promise.all([
        collection.countDocuments(PENDING_OUTBOX_FILTER),
        collection.findOne(pendingOutboxScanFilter(), {
          sort: { [OUTBOX_SCAN_PATH]: 1 },
          projection: { [OUTBOX_FIELD]: 1 },
        }),
      ]);
      const first: OutboxEntry | undefined = oldest?._outbox?.[0];
      return { collection: collection.collectionName, pendingDocuments, oldestPendingAt: first?.createdAt ?? null };
    }),
  );
}
