import type { InboxEventDocument } from './types';

/** How long after a message's next delivery was due it still counts as live, by default: 10 minutes. */
export const DEFAULT_LIVE_MESSAGE_GRACE_MS = 10 * 60 * 1000;

/** Whether a message of the event is still waiting or retrying in JetStream, and why {@link messageState} thinks so. */
export type MessageState =
  /** An attempt holds the event's lease right now. */
  | { live: true; reason: 'attempt-running'; until: Date }
  /** A delivery is due (a retry, a requeue, the first delivery) and its grace has not run out. */
  | { live: true; reason: 'delivery-due'; until: Date }
  /** The last attempt of the last message's round failed: the transport terminated it. */
  | { live: false; reason: 'round-ended' }
  /** A delivery was due longer ago than the grace: the message is lost (purged, aged out) or stuck. */
  | { live: false; reason: 'overdue' };

/**
 * The rules the recovery cron goes by to tell "a message is still waiting or retrying" from "no live message",
 * from the retry state the consumers and the inbox operations record on the row:
 *
 * 1. an attempt holds the event's lease (`leaseUntil` in the future) → live;
 * 2. `roundEndedAt` is set and no attempt started after it (`lastAttemptAt <= roundEndedAt`) → not live: the
 *    consumer's retry policy had no attempt left, so the transport terminated the message;
 * 3. otherwise the next delivery was due at the latest of `nextAttemptAt` (a failure's now + nak delay),
 *    `requeuedAt`, `lastAttemptAt` (an attempt that crashed is redelivered after the ack wait) and `receivedAt`
 *    (the first delivery); the message is live until that time plus `graceMs`, which must cover the consumer's ack
 *    wait plus how long a due message may wait behind others when the consumers are busy. Past it, the message is
 *    taken as lost (a purge, the stream's max age, a failed publish) and the event is requeued: if it was only
 *    late, the event gets one more message, which is skipped once the event is processed.
 */
export function messageState(
  event: Pick<
    InboxEventDocument,
    'receivedAt' | 'lastAttemptAt' | 'leaseUntil' | 'nextAttemptAt' | 'roundEndedAt' | 'requeuedAt'
  >,
  now: Date,
  graceMs = DEFAULT_LIVE_MESSAGE_GRACE_MS,
): MessageState {
  const at = now.getTime();
  if (event.leaseUntil && event.leaseUntil.getTime() > at)
    return { live: true, reason: 'attempt-running', until: event.leaseUntil };
  const lastAttempt = event.lastAttemptAt?.getTime() ?? 0;
  if (event.roundEndedAt && event.roundEndedAt.getTime() >= lastAttempt) return { live: false, reason: 'round-ended' };
  const due = Math.max(
    event.nextAttemptAt?.getTime() ?? 0,
    event.requeuedAt?.getTime() ?? 0,
    lastAttempt,
    event.receivedAt.getTime(),
  );
  const until = due + graceMs;
  return until > at
    ? { live: true, reason: 'delivery-due', until: new Date(until) }
    : { live: false, reason: 'overdue' };
}
