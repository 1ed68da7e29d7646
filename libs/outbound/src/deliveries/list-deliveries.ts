import type { Filter } from 'mongodb';
import type { OutboundCollections } from '../collections';
import type { DeliveryDocument, DeliveryStatus } from './delivery-document';

/** Which deliveries to list. */
export interface DeliveryFilter {
  endpointId?: string;
  workspaceId?: string;
  eventId?: string;
  status?: DeliveryStatus | DeliveryStatus[];
  /** Created at or after. */
  since?: Date;
  /** Most rows (default 100, at most 10 000). */
  limit?: number;
}

/** Deliveries, newest first, with their attempts. */
export async function listDeliveries(dependencies: { collections: Pick<OutboundCollections, 'deliveries'> }, filter: DeliveryFilter = {}): Promise<DeliveryDocument[]> {
  const query: Filter<DeliveryDocument> = {};
  if (filter.endpointId !== undefined) query.endpointId = filter.endpointId;
  if (filter.workspaceId !== undefined) query.workspaceId = filter.workspaceId;
  if (filter.eventId !== undefined) query.eventId = filter.eventId;
  if (filter.status !== undefined) query.status = Array.isArray(filter.status) ? { $in: filter.status } : filter.status;
  if (filter.since !== undefined) query.createdAt = { $gte: filter.since };
  const limit = Math.min(Math.max(filter.limit ?? 100, 1), 10_000);
  return dependencies.collections.deliveries.find(query).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray();
}
