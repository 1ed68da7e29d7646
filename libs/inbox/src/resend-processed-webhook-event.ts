import type { ResentInboxEventDocument } from './attempt-log';
import { inboxEventKey } from './collections';
import { leaseDocumentId } from './leases/lease-types';
import { asOperationOwner, OPERATION_LEASE_MS } from './operation-owner';
import type { RedeliverWebhookEventOptions } from './redeliver-webhook-event';
import { republishWebhookEvent, requeueMessageId } from './republish-webhook-event';
import { leaseFields, reopenFields } from './requeue-state';
import { ROW_LEASE_FIELDS } from './row-lease';
import { systemClock, type Inbox } from './types';
import { withEventLease } from './with-event-lease';

/**
 * Ends, at `processedAt`, the lease of the attempt that processed the event, which `markProcessed` leaves to run out
 * (it guards nothing once `processedAt` is written, since every claim and operation reads `processedAt` first):
 * without this, the event would read "busy" until that lease's `until`. Only a lease taken before the processing,
 * and not yet released, is ended; its holder has nothing left to write once its success is recorded.
 */
async function endSucceededLease(inbox: Inbox, key: string, generation: number, processedAt: Date): Promise<void> {
  // Read and written by `{ _id }` alone, the one filter FerretDB 1.24 serves from an index.
  const id = leaseDocumentId(key, generation);
  const lease = await inbox.leases.findOne({ _id: id });
  if (!lease || lease.releasedAt !== null || lease.acquiredAt.getTime() > processedAt.getTime()) return;
  await inbox.leases.updateOne({ _id: id }, { $set: { releasedAt: processedAt } });
}

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
 * as Hookdeck's and Svix's resend do: under the event's lease, the row's `processedAt` moves to `processedBefore`
 * (so its attempt log still shows which attempt succeeded), the event gets a fresh round of attempts (`attempts` 0,
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
  const known = await inbox.events.findOne(
    { _id: key },
    { projection: { _id: 1, processedAt: 1, ...ROW_LEASE_FIELDS } },
  );
  if (!known) return { status: 'unknown' };
  if (known.processedAt) await endSucceededLease(inbox, key, known.leaseGeneration ?? 1, known.processedAt);
  const outcome = await withEventLease(
    {
      inbox,
      key,
      owner: asOperationOwner(options.owner, 'resend-processed'),
      leaseMs: options.leaseMs ?? OPERATION_LEASE_MS,
      clock,
      known,
    },
    async (lease) => {
      const event: ResentInboxEventDocument | null = await inbox.events.findOne({ _id: key });
      if (!event) return { status: 'unknown' as const };
      const processedAt = event.processedAt;
      if (!processedAt) return { status: 'not_processed' as const };
      const now = clock();
      const n = (event.requeueCount ?? 0) + 1;
      const updated = await inbox.events.updateOne(
        { _id: key },
        {
          $set: {
            ...reopenFields(now),
            processedAt: null,
            processedBefore: [...(event.processedBefore ?? []), processedAt],
            requeueCount: n,
            requeuedAt: now,
            nextAttemptAt: now,
            roundEndedAt: null,
            ...leaseFields(lease),
          },
        },
      );
      if (updated.matchedCount !== 1) return { status: 'unknown' as const };
      return { status: 'publish' as const, event, msgId: requeueMessageId(event, n), processedAt };
    },
  );
  if (!outcome.acquired) return { status: 'busy', holder: outcome.holder, remainingMs: outcome.remainingMs };
  const value = outcome.value;
  if (value.status !== 'publish') return value;
  const ack = await republishWebhookEvent({ js: options.messaging.js, event: value.event, msgId: value.msgId });
  return { status: 'resent', msgId: value.msgId, streamSequence: ack.seq, processedAt: value.processedAt };
}
