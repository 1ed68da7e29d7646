import type { Filter } from 'mongodb';
import type { OutboundCollections } from '../collections';
import type { DeliveryDocument, DeliveryStatus, DeliveryView } from './delivery-document';
import { loadDeliveryViews } from './load-delivery-views';

/** Which deliveries to list. */
export interface DeliveryFilter {
  endpointId?: string;
  workspaceId?: string;
  eventId?: string;
  /** One event type (`invoice.paid`). */
  eventType?: string;
  status?: DeliveryStatus | DeliveryStatus[];
  /** Created at or after. */
  since?: Date;
  /** Created before (to page back: pass the last row's `createdAt`). */
  before?: Date;
  /** Most rows (default 100, at most 10 000). */
  limit?: number;
}

/**
 * Deliveries with their status and log, newest first. The status is read from the log, so a status filter is
 * applied to pages of deliveries until `limit` rows match or the filter's range is exhausted.
 */
export async function listDeliveries(
  dependencies: { collections: Pick<OutboundCollections, 'deliveries' | 'attempts'> },
  filter: DeliveryFilter = {},
): Promise<DeliveryView[]> {
  const limit = Math.min(Math.max(filter.limit ?? 100, 1), 10_000);
  const statuses =
    filter.status === undefined ? undefined : Array.isArray(filter.status) ? filter.status : [filter.status];
  const found: DeliveryView[] = [];
  const seen = new Set<string>();
  let before = filter.before;
  let inclusive = false;
  for (;;) {
    const query: Filter<DeliveryDocument> = {};
    if (filter.endpointId !== undefined) query.endpointId = filter.endpointId;
    if (filter.workspaceId !== undefined) query.workspaceId = filter.workspaceId;
    if (filter.eventId !== undefined) query.eventId = filter.eventId;
    if (filter.eventType !== undefined) query.eventType = filter.eventType;
    if (filter.since !== undefined || before !== undefined)
      query.createdAt = {
        ...(filter.since ? { $gte: filter.since } : {}),
        ...(before ? (inclusive ? { $lte: before } : { $lt: before }) : {}),
      };
    const rows = await dependencies.collections.deliveries
      .find(query)
      .sort({ createdAt: -1, _id: -1 })
      .limit(statuses ? 1000 : limit)
      .toArray();
    const page = rows.filter((row) => !seen.has(row._id));
    page.forEach((row) => seen.add(row._id));
    const views = await loadDeliveryViews(dependencies.collections, page);
    found.push(...(statuses ? views.filter((view) => statuses.includes(view.status)) : views));
    if (!statuses || rows.length < 1000 || page.length === 0 || found.length >= limit) return found.slice(0, limit);
    // Deliveries of one instant can straddle pages: the next page starts at that instant again, skipping those seen.
    before = rows[rows.length - 1].createdAt;
    inclusive = true;
  }
}
