import type { OutboundCollections } from '../collections';

/** What a retention pass deleted. */
export interface RetentionResult {
  deliveries: number;
  events: number;
}

/**
 * Deletes the delivery log older than `before` (deliveries not pending, and events), in batches of `batchSize`
 * ids (default 1000): FerretDB fails a `deleteMany` of more than about 32 000 rows at once, and small batches keep
 * each call short. Pending deliveries are kept whatever their age.
 */
export async function deleteOldDeliveries(dependencies: { collections: Pick<OutboundCollections, 'deliveries' | 'events'> }, before: Date, options: { batchSize?: number } = {}): Promise<RetentionResult> {
  const batchSize = Math.max(1, options.batchSize ?? 1000);
  const result: RetentionResult = { deliveries: 0, events: 0 };
  for (;;) {
    const ids = (await dependencies.collections.deliveries.find({ createdAt: { $lt: before }, status: { $ne: 'pending' } }, { projection: { _id: 1 } }).limit(batchSize).toArray()).map((row) => row._id);
    if (ids.length === 0) break;
    result.deliveries += (await dependencies.collections.deliveries.deleteMany({ _id: { $in: ids } })).deletedCount;
  }
  for (;;) {
    const ids = (await dependencies.collections.events.find({ createdAt: { $lt: before } }, { projection: { _id: 1 } }).limit(batchSize).toArray()).map((row) => row._id);
    if (ids.length === 0) break;
    result.events += (await dependencies.collections.events.deleteMany({ _id: { $in: ids } })).deletedCount;
  }
  return result;
}
