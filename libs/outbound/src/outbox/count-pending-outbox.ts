import { PENDING_OUTBOX_FILTER } from './outbox-index';
import type { OutboxCollection } from './outbox-types';

/**
 * How many documents of the collections hold at least one pending entry: the `webhook_outbox_pending` reading. A
 * steady rise means the relay is down or cannot keep up; a count that never reaches zero, an entry it cannot send.
 */
export async function countPendingOutbox(collections: readonly OutboxCollection[]): Promise<number> {
  const counts = await Promise.all(collections.map((collection) => collection.countDocuments(PENDING_OUTBOX_FILTER)));
  return counts.reduce((sum, count) => sum + count, 0);
}
