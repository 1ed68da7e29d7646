import { requeueMessageId } from './republish-webhook-event';
import { heldBy } from './row-lease';
import type { EventLease, Inbox, InboxEventDocument, InboxSuccess } from './types';

/** The fields that give a set-aside event its attempts back. */
export function reopenFields(now: Date): Partial<InboxEventDocument> {
  return { attempts: 0, abandonedAt: null, alertedAt: null, reopenedAt: now };
}

/** Options for {@link recordRequeue}. */
export interface RecordRequeueOptions {
  inbox: Inbox;
  /** The row as read under `lease`. */
  event: InboxEventDocument;
  /** The event's lease, held by the caller ({@link withEventLease}). */
  lease: EventLease;
  now: Date;
  /** Also give the event its attempts back (it was set aside, or is sent again). */
  reopen?: boolean;
  /**
   * The event was processed and is sent to its handler again: its success (`processedAt`, `processedBy`) moves to
   * `processedBefore`, so the next success is recorded as any other.
   */
  forgetSuccess?: boolean;
}

/**
 * Records, under the event's lease, that a new message is about to be published for it: a new round starts now
 * (`requeueCount + 1`, `requeuedAt` and `nextAttemptAt` now, `roundEndedAt` cleared). Resolves with that message's
 * id (null if the lease was lost or the row is gone). The caller read the row under the lease and checked it is
 * unprocessed, or asks `forgetSuccess`. Publish after releasing the lease, so the consumer that gets the message does not find the event
 * busy; a publish that fails leaves the row saying "delivery due now", and the recovery cron requeues it once the
 * grace has run out.
 */
export async function recordRequeue(options: RecordRequeueOptions): Promise<string | null> {
  const { inbox, event, lease, now } = options;
  const n = (event.requeueCount ?? 0) + 1;
  const result = await inbox.events.updateOne(heldBy(lease), {
    $set: {
      ...(options.reopen ? reopenFields(now) : {}),
      ...(options.forgetSuccess ? { processedAt: null } : {}),
      requeueCount: n,
      requeuedAt: now,
      nextAttemptAt: now,
      roundEndedAt: null,
    },
    ...(options.forgetSuccess && event.processedAt
      ? { $unset: { processedBy: '' }, $push: { processedBefore: successOf(event, event.processedAt) } }
      : {}),
  });
  return result.matchedCount === 1 ? requeueMessageId(event, n) : null;
}

/** A processed row's success as `processedBefore` keeps it: when, which attempt, whose, when it was claimed. */
function successOf(event: InboxEventDocument, at: Date): InboxSuccess {
  const by = event.processedBy;
  return {
    at,
    attempt: by?.attempt ?? event.attempts,
    owner: by?.owner ?? 'unknown',
    ...(by?.startedAt ? { startedAt: by.startedAt } : {}),
  };
}
