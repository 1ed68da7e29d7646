import { inboxEventKey } from './collections';
import { asOperationOwner, OPERATION_LEASE_MS } from './operation-owner';
import type { RedeliverWebhookEventOptions } from './redeliver-webhook-event';
import { republishWebhookEvent } from './republish-webhook-event';
import { recordRequeue } from './requeue-state';
import { systemClock } from '@berth/contract';
import { withEventLease } from './with-event-lease';

/** What {@link resendProcessedWebhookEvent} did. */
export type ResendProcessedWebhookEventResult =
  /** Published again with its attempts back; `processedAt` is when it had been processed. */
  | { status: 'resent'; msgId: string; streamSequence: number; processedAt: Date }
  | { status: 'unknown' }
  /** Not processed: {@link redeliverWebhookEvent} is the operation for it. */
  | { status: 'not_processed' }
  | { status: 'busy'; holder: string; remainingMs: number };

/**
 * Sends a processed event to its handler once more (what a team does after fixing a handler that "succeeded" wrongly),
 * as Hookdeck's and Svix's resend do: under the event's lease, the row's success moves to `processedBefore` (when,
 * which attempt, whose), the event gets a fresh round of attempts (`attempts` 0,
 * `reopenedAt` now) and a new message `<provider>/requeue/<n>:<eventId>` is published after the lease is released.
 *
 * `processedAt` goes back to null and is set again by the next success: the retention deletes by `processedAt`
 * windows it reads in one pass, and an event whose `processedAt` is null, or later than the pass's cutoff, is in none
 * of them, so it is never deleted early. A publish that fails leaves the event unprocessed with its delivery due now,
 * which the recovery cron requeues once its grace has run out, as for {@link redeliverWebhookEvent}.
 */
export async function resendProcessedWebhookEvent(
  options: RedeliverWebhookEventOptions,
): Promise<ResendProcessedWebhookEventResult> {
  const { inbox } = options;
  const clock = options.clock ?? systemClock;
  const key = inboxEventKey(options.provider, options.eventId);
  const outcome = await withEventLease(
    {
      inbox,
      key,
      owner: asOperationOwner(options.owner, 'resend-processed'),
      leaseMs: options.leaseMs ?? OPERATION_LEASE_MS,
      clock,
    },
    async (lease, event) => {
      const processedAt = event.processedAt;
      if (!processedAt) return { status: 'not_processed' as const };
      const msgId = await recordRequeue({ inbox, event, lease, now: clock.now(), reopen: true, forgetSuccess: true });
      if (!msgId) return { status: 'unknown' as const };
      return { status: 'publish' as const, event, msgId, processedAt };
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
  return { status: 'resent', msgId: value.msgId, streamSequence: ack.seq, processedAt: value.processedAt };
}
