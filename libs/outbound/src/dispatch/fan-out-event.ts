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
 * event is acked) only once every delivery is written to `outboundDeliveries` and durably queued on
 * `OUTBOUND_DELIVERIES`; the
 * event row is written last and marks the fan-out done, so a redelivered or resent event that finds it is skipped.
 * Run again after a crash, every step is a no-op the second time (delivery `Nats-Msg-Id`s, unique `_id`s).
 */
export async function fanOutEvent(dependencies: FanOutDependencies, message: ReceivedMessage): Promise<void> {
  const event = message.json<OutboundEvent>();
  if (await dependencies.collections.events.findOne({ _id: event.eventId }, { projection: { _id: 1 } })) return;
  const createdAt = new Date(event.sentAt);
  const targets = dependencies.endpoints.ofWorkspace(event.workspaceId).filter((endpoint) => endpoint.disabledAt === null && subscribesTo(endpoint, event.eventType));
  if (targets.length > 0) {
    const deliveries: DeliveryDocument[] = targets.map((endpoint) => ({
      _id: deliveryIdFor(event.eventId, endpoint._id),
      eventId: event.eventId,
      endpointId: endpoint._id,
      workspaceId: event.workspaceId,
      eventType: event.eventType,
      createdAt,
    }));
    await Promise.all(deliveries.map((delivery) => dependencies.writers.deliveries.insert(delivery)));
    await Promise.all(deliveries.map((delivery) => publishDelivery(dependencies.js, {
      deliveryId: delivery._id,
      eventId: event.eventId,
      endpointId: delivery.endpointId,
      workspaceId: event.workspaceId,
      eventType: event.eventType,
      body: event.body,
      sentAt: event.sentAt,
      round: 0,
      roundAttempt: 1,
    })));
  }
  await dependencies.writers.events.insert({
    _id: event.eventId,
    workspaceId: event.workspaceId,
    eventType: event.eventType,
    body: event.body,
    idempotencyKey: event.idempotencyKey,
    createdAt,
    endpointIds: targets.map((endpoint) => endpoint._id),
  });
  dependencies.metrics.eventsFannedOut.inc();
  dependencies.metrics.deliveriesQueued.inc(targets.length);
}
