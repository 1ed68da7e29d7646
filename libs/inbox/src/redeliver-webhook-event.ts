import type { JetStreamClient } from '@nats-io/jetstream';
import { inboxEventKey } from './collections';
import { asOperationOwner, OPERATION_LEASE_MS } from './operation-owner';
import { republishWebhookEvent } from './republish-webhook-event';
import { recordRequeue } from './requeue-state';
import { systemClock, type Clock } from '@berth/contract';
import type { Inbox } from './types';
import { withEventLease } from './with-event-lease';

/** Options for {@link redeliverWebhookEvent}. */
export interface RedeliverWebhookEventOptions {
  inbox: Inbox;
  messaging: { js: JetStreamClient };
  provider: string;
  eventId: string;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Lease owner id; defaults to `redeliver:<hostname>:<pid>:<random>`. */
  owner?: string;
  leaseMs?: number;
}

/** What {@link redeliverWebhookEvent} did. */
export type RedeliverWebhookEventResult =
  /** Published again; `reopened` when it was set aside and got its attempts back. */
  | { status: 'redelivered'; msgId: string; streamSequence: number; reopened: boolean }
  /** No such event in the inbox: nothing to publish (the payload is only there). */
  | { status: 'unknown' }
  /** Already processed: nothing published, since the consumer would skip it. */
  | { status: 'processed'; processedAt: Date }
  /** An attempt (or another operation) holds the event right now: nothing published; try again after it. */
  | { status: 'busy'; holder: string; remainingMs: number };

/**
 * Publishes one stored event again now, for `berth webhooks redeliver`, under a new `Nats-Msg-Id`
 * (`<provider>/requeue/<n>:<eventId>`), starting a new round of attempts:
 * - unprocessed → published; a live message it may still have is skipped once the event is processed;
 * - set aside → given its attempts back (as `retry-abandoned` does for all) and published;
 * - processed → refused (`processed`): the consumer would skip it, and un-processing an event is not offered,
 *   because `processedAt` never changing once set is what the retention relies on;
 * - unknown → refused (`unknown`);
 * - held by a running attempt → refused (`busy`).
 */
export async function redeliverWebhookEvent(
  options: RedeliverWebhookEventOptions,
): Promise<RedeliverWebhookEventResult> {
  const { inbox } = options;
  const clock = options.clock ?? systemClock;
  const key = inboxEventKey(options.provider, options.eventId);
  const known = await inbox.events.findOne({ _id: key }, { projection: { _id: 1, processedAt: 1 } });
  if (!known) return { status: 'unknown' };
  if (known.processedAt) return { status: 'processed', processedAt: known.processedAt };

  const outcome = await withEventLease(
    {
      inbox,
      key,
      owner: asOperationOwner(options.owner, 'redeliver'),
      leaseMs: options.leaseMs ?? OPERATION_LEASE_MS,
      clock,
    },
    async (lease, event) => {
      if (event.processedAt) return { status: 'processed' as const, processedAt: event.processedAt };
      const reopened = Boolean(event.abandonedAt);
      const msgId = await recordRequeue({ inbox, event, lease, now: clock.now(), reopen: reopened });
      return msgId ? { status: 'publish' as const, event, msgId, reopened } : { status: 'unknown' as const };
    },
  );
  if (!outcome.acquired) {
    return outcome.holder === null
      ? { status: 'unknown' }
      : { status: 'busy', holder: outcome.holder, remainingMs: outcome.remainingMs };
  }
  const value = outcome.value;
  if (value.status !== 'publish') return value;
  const ack = await republishWebhookEvent({ js: options.messaging.js, event: value.event, msgId: value.msgId });
  return { status: 'redelivered', msgId: value.msgId, streamSequence: ack.seq, reopened: value.reopened };
}
