import type { JetStreamClient } from '@nats-io/jetstream';
import type { ReceivedMessage } from '@berth/messaging';
import type { OutboundCollections } from '../collections';
import type { DeliveryDocument } from '../deliveries/delivery-document';
import { publishDelivery } from '../deliveries/delivery-message';
import { subscribesTo } from '../endpoints/endpoint-document';
import { deliveryIdFor } from '../names';
import type { OutboundEvent } from '../send/event-document';
import type { DispatcherMetrics } from './dispatcher-metrics';
import type { EndpointRegistry } from './endpoint-registry';
import type { LogWriters } from './log-writers';

/** What the fan-out uses. */
export interface FanOutDependencies {
  js: JetStreamClient;
  collections: Pick<OutboundCollections, 'events'>;
  writers: Pick<LogWriters, 'events' | 'deliveries'>;
  endpoints: EndpointRegistry;
  metrics: DispatcherMetrics;
}

/**
 * Fans one event out: one delivery per enabled endpoint of its workspace subscribed to its type. Resolves (and the
 * event is acked) only once the event row, every delivery row and every delivery message are durably stored.
 *
 * The event row is inserted first, and its unique `_id` tells whether the event was seen before: the insert checks
 * and records in one write, so two fan-outs of the same event (a resend, a redelivery) cannot both take it as new:
 * - new: fan out to the endpoints known now;
 * - seen, first delivery of this message: a resend of an event fanned out earlier (its idempotency key came back
 *   after JetStream's 24 h duplicate window): skipped;
 * - seen, message delivered again (this fan-out failed or crashed half-way): done again to the endpoints stored
 *   with the event; delivery rows are duplicate keys and delivery messages are dropped by their `Nats-Msg-Id`.
 */
export async function fanOutEvent(dependencies: FanOutDependencies, message: ReceivedMessage): Promise<void> {
  const event = message.json<OutboundEvent>();
  const createdAt = new Date(event.sentAt);
  let endpointIds = dependencies.endpoints
    .ofWorkspace(event.workspaceId)
    .filter((endpoint) => endpoint.disabledAt === null && subscribesTo(endpoint, event.eventType))
    .map((endpoint) => endpoint._id);
  const inserted = await dependencies.writers.events.insert({
    _id: event.eventId,
    workspaceId: event.workspaceId,
    eventType: event.eventType,
    body: event.body,
    idempotencyKey: event.idempotencyKey,
    createdAt,
    endpointIds,
  });
  if (inserted === 'duplicate') {
    if (message.deliveryCount === 1) return;
    endpointIds = (await dependencies.collections.events.findOne({ _id: event.eventId }))?.endpointIds ?? endpointIds;
  }
  const deliveries: DeliveryDocument[] = endpointIds.map((endpointId) => ({
    _id: deliveryIdFor(event.eventId, endpointId),
    eventId: event.eventId,
    endpointId,
    workspaceId: event.workspaceId,
    eventType: event.eventType,
    createdAt,
  }));
  await Promise.all(deliveries.map((delivery) => dependencies.writers.deliveries.insert(delivery)));
  await Promise.all(
    deliveries.map((delivery) =>
      publishDelivery(dependencies.js, {
        deliveryId: delivery._id,
        eventId: event.eventId,
        endpointId: delivery.endpointId,
        workspaceId: event.workspaceId,
        eventType: event.eventType,
        body: event.body,
        sentAt: event.sentAt,
        round: 0,
        roundAttempt: 1,
      }),
    ),
  );
  dependencies.metrics.eventsFannedOut.inc();
  dependencies.metrics.deliveriesQueued.inc(deliveries.length);
}
