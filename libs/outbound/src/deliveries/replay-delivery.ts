import type { JetStreamClient } from '@nats-io/jetstream';
import type { Clock } from '../clock';
import type { OutboundCollections } from '../collections';
import { publishDelivery } from './delivery-message';

/** What a replay needs. */
export interface ReplayDependencies {
  js: JetStreamClient;
  collections: Pick<OutboundCollections, 'deliveries' | 'events'>;
  clock?: Clock;
}

/** Raised when a delivery can't be replayed: unknown, still pending, or its event is past retention. */
export class ReplayRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplayRefusedError';
  }
}

/** What one replay did. */
export interface ReplayedDelivery {
  deliveryId: string;
  endpointId: string;
  /** The replay's number for this delivery (1 for the first replay). */
  round: number;
}

/**
 * Sends a delivery again, with the same `webhook-id` (so a receiver that already has it ignores it) and a fresh run
 * of the retry schedule: the message is queued on the endpoint's subject, then the delivery is marked `pending`. A
 * delivery still `pending` is refused (it is already being retried). Queuing first means a crash between the two
 * steps leaves a queued message, and a second replay of the same round is dropped by its `Nats-Msg-Id`.
 * @throws ReplayRefusedError
 */
export async function replayDelivery(dependencies: ReplayDependencies, deliveryId: string): Promise<ReplayedDelivery> {
  const delivery = await dependencies.collections.deliveries.findOne({ _id: deliveryId });
  if (!delivery) throw new ReplayRefusedError(`No delivery ${deliveryId}`);
  if (delivery.status === 'pending') throw new ReplayRefusedError(`Delivery ${deliveryId} is pending: it is still being attempted`);
  const event = await dependencies.collections.events.findOne({ _id: delivery.eventId });
  if (!event) throw new ReplayRefusedError(`The event of delivery ${deliveryId} is no longer kept`);
  const round = delivery.replays + 1;
  await publishDelivery(dependencies.js, {
    deliveryId,
    eventId: delivery.eventId,
    endpointId: delivery.endpointId,
    workspaceId: delivery.workspaceId,
    eventType: delivery.eventType,
    body: event.body,
    sentAt: event.createdAt.toISOString(),
    round,
    roundAttempt: 1,
  });
  const now = (dependencies.clock ?? (() => new Date()))();
  await dependencies.collections.deliveries.updateOne({ _id: deliveryId }, { $set: { status: 'pending', replays: round, nextAttemptAt: now } });
  return { deliveryId, endpointId: delivery.endpointId, round };
}
