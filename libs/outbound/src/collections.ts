import type { Collection, Db } from 'mongodb';
import type { DeliveryDocument, DeliveryLogEntry } from './deliveries/delivery-document';
import type { EndpointDocument } from './endpoints/endpoint-document';
import type { EventDocument } from './send/event-document';

/**
 * The record of an alert, written by the attempt that raised it; its `_id` names the occurrence (an endpoint and the
 * start of its failure run).
 */
export interface AlertDocument {
  _id: string;
  kind: 'endpoint-auto-disabled';
  endpointId: string;
  workspaceId: string;
  message: string;
  raisedAt: Date;
}

/** The MongoDB collections of outbound webhooks. */
export interface OutboundCollections {
  endpoints: Collection<EndpointDocument>;
  events: Collection<EventDocument>;
  deliveries: Collection<DeliveryDocument>;
  /** The delivery log: attempts, skips and replays, insert-only. */
  attempts: Collection<DeliveryLogEntry>;
  alerts: Collection<AlertDocument>;
}

/** The outbound collections of `db`: `outboundEndpoints`, `outboundEvents`, `outboundDeliveries`, `outboundAttempts`, `outboundAlerts`. */
export function outboundCollections(db: Db): OutboundCollections {
  return {
    endpoints: db.collection<EndpointDocument>('outboundEndpoints'),
    events: db.collection<EventDocument>('outboundEvents'),
    deliveries: db.collection<DeliveryDocument>('outboundDeliveries'),
    attempts: db.collection<DeliveryLogEntry>('outboundAttempts'),
    alerts: db.collection<AlertDocument>('outboundAlerts'),
  };
}

/**
 * The indexes of the operator queries (by workspace, by endpoint and time, log entries by delivery) and of
 * retention (by age). The hot paths read and write by `_id` and need none of them.
 */
export async function ensureOutboundIndexes(collections: OutboundCollections): Promise<void> {
  await collections.endpoints.createIndex({ workspaceId: 1 }, { name: 'workspaceId' });
  await collections.deliveries.createIndex({ endpointId: 1, createdAt: 1 }, { name: 'endpointId_createdAt' });
  await collections.deliveries.createIndex({ createdAt: 1 }, { name: 'createdAt' });
  await collections.attempts.createIndex({ deliveryId: 1 }, { name: 'deliveryId' });
  await collections.attempts.createIndex({ createdAt: 1 }, { name: 'createdAt' });
  await collections.events.createIndex({ createdAt: 1 }, { name: 'createdAt' });
}
