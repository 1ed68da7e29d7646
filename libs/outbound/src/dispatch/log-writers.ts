import type { OutboundCollections } from '../collections';
import type { DeliveryDocument, DeliveryLogEntry } from '../deliveries/delivery-document';
import type { EventDocument } from '../send/event-document';
import { BatchedInserter } from '@berth/store';

/**
 * The dispatcher's insert-only writes, one group-committing writer per collection: the inserts of concurrent
 * attempts and fan-outs leave as one `insertMany`, several times the rate of one `insertOne` each (docs/outbound.md).
 */
export interface LogWriters {
  attempts: BatchedInserter<DeliveryLogEntry>;
  deliveries: BatchedInserter<DeliveryDocument>;
  events: BatchedInserter<EventDocument>;
}

/** One {@link BatchedInserter} per collection the hot path writes. */
export function createLogWriters(
  collections: Pick<OutboundCollections, 'attempts' | 'deliveries' | 'events'>,
): LogWriters {
  return {
    attempts: new BatchedInserter(collections.attempts),
    deliveries: new BatchedInserter(collections.deliveries, 1000),
    events: new BatchedInserter(collections.events),
  };
}
