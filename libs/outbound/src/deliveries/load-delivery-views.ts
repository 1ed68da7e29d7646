import type { OutboundCollections } from '../collections';
import { toDeliveryView, type DeliveryDocument, type DeliveryLogEntry, type DeliveryView } from './delivery-document';

/** The views of `deliveries`, with their log entries read in one query. */
export async function loadDeliveryViews(
  collections: Pick<OutboundCollections, 'attempts'>,
  deliveries: readonly DeliveryDocument[],
): Promise<DeliveryView[]> {
  if (deliveries.length === 0) return [];
  const entries = await collections.attempts
    .find({ deliveryId: { $in: deliveries.map((delivery) => delivery._id) } })
    .toArray();
  const byDelivery = new Map<string, DeliveryLogEntry[]>();
  for (const entry of entries) byDelivery.set(entry.deliveryId, [...(byDelivery.get(entry.deliveryId) ?? []), entry]);
  return deliveries.map((delivery) => toDeliveryView(delivery, byDelivery.get(delivery._id) ?? []));
}

/** One delivery's view, or undefined when unknown. */
export async function getDeliveryView(
  collections: Pick<OutboundCollections, 'deliveries' | 'attempts'>,
  deliveryId: string,
): Promise<DeliveryView | undefined> {
  const delivery = await collections.deliveries.findOne({ _id: deliveryId });
  if (!delivery) return undefined;
  return (await loadDeliveryViews(collections, [delivery]))[0];
}
