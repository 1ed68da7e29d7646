import type { Collection, Document } from 'mongodb';
import type { OutboundCollections } from '../collections';

/** What a retention pass deleted. */
export interface RetentionResult {
  deliveries: number;
  attempts: number;
  events: number;
}

/**
 * Deletes the delivery log of deliveries created before `before`: log entries, deliveries and events, in batches
 * of `batchSize` ids (default 1000). FerretDB fails a `deleteMany` of more than about 32 000 rows at once, and small
 * batches keep each call short. Retention is far longer than the retry schedule (27.6 h), so nothing deleted is
 * still being attempted.
 */
export async function deleteOldDeliveries(
  dependencies: { collections: Pick<OutboundCollections, 'deliveries' | 'attempts' | 'events'> },
  before: Date,
  options: { batchSize?: number } = {},
): Promise<RetentionResult> {
  const batchSize = Math.max(1, options.batchSize ?? 1000);
  const { collections } = dependencies;
  return {
    attempts: await deleteInBatches(collections.attempts, before, batchSize),
    deliveries: await deleteInBatches(collections.deliveries, before, batchSize),
    events: await deleteInBatches(collections.events, before, batchSize),
  };
}

async function deleteInBatches<T extends Document & { _id: string; createdAt: Date }>(
  collection: Collection<T>,
  before: Date,
  batchSize: number,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await collection
      .find({ createdAt: { $lt: before } } as never, { projection: { _id: 1 } })
      .limit(batchSize)
      .toArray();
    if (rows.length === 0) return deleted;
    deleted += (await collection.deleteMany({ _id: { $in: rows.map((row) => row._id) } } as never)).deletedCount;
  }
}
