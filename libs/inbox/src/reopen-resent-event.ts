import { inboxEventKey } from './collections';
import { asOperationOwner, OPERATION_LEASE_MS } from './operation-owner';
import { reopenFields } from './requeue-state';
import { heldBy } from './row-lease';
import { systemClock, type Clock } from '@berth/contract';
import type { Inbox } from './types';
import { withEventLease } from './with-event-lease';

/** Options for {@link reopenResentWebhookEvent}. */
export interface ReopenResentWebhookEventOptions {
  inbox: Inbox;
  provider: string;
  eventId: string;
  /** When the gateway received the copy being handled (`Berth-Received-At`, or the batch item's). */
  receivedAt: Date;
  clock?: Clock;
  /** Lease owner id; defaults to `inbox-op:resend:<hostname>:<pid>:<random>`. */
  owner?: string;
}

/** What {@link reopenResentWebhookEvent} did. */
export type ReopenResentWebhookEventResult = 'reopened' | 'not_set_aside' | 'not_a_resend' | 'busy';

/**
 * Reopens a set-aside event because its provider sent it again (a "resend" from the provider's dashboard): when
 * the copy being handled was received by the gateway after the event was set aside, the event gets its attempts
 * back as `retry-abandoned` gives them (`attempts` 0, `abandonedAt` and `alertedAt` cleared, `reopenedAt` set),
 * so the message carrying the copy runs it. A JetStream redelivery or an inbox requeue carries the first receive
 * time, earlier than the set-aside, so it reopens nothing; a copy of a processed event reopens nothing either.
 * Written under the event's lease, like every inbox operation.
 */
export async function reopenResentWebhookEvent(
  options: ReopenResentWebhookEventOptions,
): Promise<ReopenResentWebhookEventResult> {
  const { inbox } = options;
  const clock = options.clock ?? systemClock;
  const key = inboxEventKey(options.provider, options.eventId);
  const known = await inbox.events.findOne({ _id: key }, { projection: { _id: 1, abandonedAt: 1 } });
  if (!known?.abandonedAt) return 'not_set_aside';
  const outcome = await withEventLease(
    { inbox, key, owner: asOperationOwner(options.owner, 'resend'), leaseMs: OPERATION_LEASE_MS, clock },
    async (lease, event): Promise<ReopenResentWebhookEventResult> => {
      if (!event.abandonedAt || event.processedAt) return 'not_set_aside';
      if (options.receivedAt.getTime() <= event.abandonedAt.getTime()) return 'not_a_resend';
      const now = clock.now();
      const updated = await inbox.events.updateOne(heldBy(lease), {
        $set: { ...reopenFields(now), nextAttemptAt: now, roundEndedAt: null },
      });
      return updated.matchedCount === 1 ? 'reopened' : 'not_set_aside';
    },
  );
  if (outcome.acquired) return outcome.value;
  return outcome.holder === null ? 'not_set_aside' : 'busy';
}
