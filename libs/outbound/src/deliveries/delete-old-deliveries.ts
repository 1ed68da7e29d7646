import type { Collection, Document, Filter } from 'mongodb';
import type { OutboundCollections } from '../collections';

/** What a retention pass deleted. */
export interface RetentionResult {
  deliveries: number;
  attempts: number;
  events: number;
}

/**
 * Deletes the delivery log of deliveries created before `before`: log entries, deliveries and events, one
 * `deleteMany({ createdAt < before })` per collection, through its `createdAt` index. Retention is far longer than
 * the retry schedule (27.6 h), so nothing deleted is still being attempted, and a pass that fails half-way is simply
 * finished by the next.
 */
export async function deleteOldDeliveries(
  dependencies: { collections: Pick<OutboundCollections, 'deliveries' | 'attempts' | 'events'> },
  before: Date,
): Promise<RetentionResult> {
  const { collections } = dependencies;
  return {
    attempts: await deleteCreatedBefore(collections.attempts, before),
    deliveries: await deleteCreatedBefore(collections.deliveries, before),
    events: await deleteCreatedBefore(collections.events, before),
  };
}

async function deleteCreatedBefore<T extends Document & { createdAt: Date }>(
  collection: Collection<T>,
  before: Date,
): Promise<number> {
  return (await collection.deleteMany({ createdAt: { $lt: before } } as Filter<T>)).deletedCount;
}
