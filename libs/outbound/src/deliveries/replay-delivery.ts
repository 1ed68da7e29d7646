import type { JetStreamClient } from '@nats-io/jetstream';
import { isDuplicateKeyError } from '@berth/store';
import { systemClock, type Clock } from '@berth/contract';
import type { OutboundCollections } from '../collections';
import { publishDelivery } from './delivery-message';
import { getDeliveryView } from './load-delivery-views';

/** What a replay needs. */
export interface ReplayDependencies {
  js: JetStreamClient;
  collections: Pick<OutboundCollections, 'deliveries' | 'attempts' | 'events'>;
  /**
   * Time for the stored timestamps; the system clock by default.
   */
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
 * Sends a delivery again, with the same `webhook-id` (so a receiver that already has it can ignore it) and a fresh
 * run of the retry schedule: the message is queued on the endpoint's subject, then a `replay` entry is logged, which
 * makes the delivery `pending`. A delivery still `pending` is refused (it is being attempted). Queuing first means a
 * crash between the two steps leaves a queued message, and replaying that round again is dropped by its
 * `Nats-Msg-Id`.
 * @throws ReplayRefusedError
 */
export async function replayDelivery(dependencies: ReplayDependencies, deliveryId: string): Promise<ReplayedDelivery> {
  const view = await getDeliveryView(dependencies.collections, deliveryId);
  if (!view) throw new ReplayRefusedError(`No delivery ${deliveryId}`);
  if (view.status === 'pending')
    throw new ReplayRefusedError(`Delivery ${deliveryId} is pending: it is still being attempted`);
  const event = await dependencies.collections.events.findOne({ _id: view.eventId });
  if (!event) throw new ReplayRefusedError(`The event of delivery ${deliveryId} is no longer kept`);
  const round = view.replays + 1;
  await publishDelivery(dependencies.js, {
    deliveryId,
    eventId: view.eventId,
    endpointId: view.endpointId,
    workspaceId: view.workspaceId,
    eventType: view.eventType,
    body: event.body,
    sentAt: view.createdAt,
    round,
    roundAttempt: 1,
  });
  const now = (dependencies.clock ?? systemClock).now();
  try {
    await dependencies.collections.attempts.insertOne({
      _id: `${deliveryId}:r${round}:replay`,
      deliveryId,
      endpointId: view.endpointId,
      round,
      attempt: 0,
      kind: 'replay',
      outcome: null,
      status: 'pending',
      statusCode: null,
      durationMs: null,
      at: now,
      responseBody: null,
      error: null,
      address: null,
      nextAttemptAt: now,
      createdAt: new Date(view.createdAt),
    });
  } catch (error) {
    // Replayed and logged before (a retried request): the entry is already there.
    if (!isDuplicateKeyError(error)) throw error;
  }
  return { deliveryId, endpointId: view.endpointId, round };
}
