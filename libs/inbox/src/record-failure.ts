import { describeError } from '@berth/messaging';
import { leaseSuperseded } from './leases/lease-superseded';
import { leaseDocumentId } from './leases/lease-types';
import { updateEventRow, updateLeaseDocument } from './store/hot-path-writes';
import { MAX_ATTEMPT_ERRORS, type Clock, type EventLease, type Inbox, type InboxAttemptError } from './types';
import { writeUnwrittenRow } from './unwritten-row';

/** How much of an error message the inbox keeps. */
export const MAX_LAST_ERROR_LENGTH = 2000;

/** Options for {@link recordFailure}. */
export interface RecordFailureOptions {
  inbox: Inbox;
  /** The lease of the attempt that failed. */
  lease: EventLease;
  /** The attempt's number (from its claim), kept with its error in `attemptErrors`. */
  attempt: number;
  error: unknown;
  clock: Clock;
  /** Also set the event aside (`abandonedAt`): retrying can never help. */
  abandon?: boolean;
  /**
   * What happens to the message next, when the caller knows (see `round-state.ts`):
   * - `{ retryAt }`: JetStream redelivers it then (the nak delay) → `nextAttemptAt`;
   * - `'round-ended'`: that was the message's last attempt, the transport terminates it → `roundEndedAt`.
   * Left out, the retry state is not touched. Setting the event aside ends the round too.
   */
  next?: { retryAt: Date } | 'round-ended';
}

/**
 * Records a failed attempt: `lastError`, the attempt's error appended to `attemptErrors` (the last
 * {@link MAX_ATTEMPT_ERRORS} kept), lease mirror cleared, the retry state (when `next` says) and `abandonedAt`
 * (when asked), only while this owner holds the event; then releases the lease so the retry can claim at once.
 * Resolves false, writing nothing, when the lease had expired and another attempt took the next one. Written by
 * `{ _id }` alone, as {@link markProcessed} explains.
 *
 * A set-aside counts in `setAsideCount` and leaves `alertedAt` null: the recovery cron raises its one alert.
 *
 * `attemptErrors` is read, appended to and written back whole: FerretDB 1.24 takes `$push` with `$each` and
 * `$slice` but ignores the `$slice` (measured: 35 failures left 35 entries), so the bound is applied here. The
 * attempt's lease makes this the row's only writer meanwhile; the read is by `_id`, as every hot-path access is.
 */
export async function recordFailure(options: RecordFailureOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  if (await leaseSuperseded(inbox.leases, lease, clock)) return false;
  // A first attempt's row is written as claimed, then as for any attempt.
  await writeUnwrittenRow(inbox, lease, {});
  const now = clock();
  const lastError = describeError(options.error).slice(0, MAX_LAST_ERROR_LENGTH);
  const { next } = options;
  const retryState =
    options.abandon || next === 'round-ended'
      ? { nextAttemptAt: null, roundEndedAt: now }
      : next
        ? { nextAttemptAt: next.retryAt, roundEndedAt: null }
        : {};
  const attemptErrors = await appendedAttemptErrors(inbox, lease.key, {
    attempt: options.attempt,
    at: now,
    error: lastError,
  });
  const matched = await updateEventRow(inbox, lease.key, {
    $set: {
      lastError,
      attemptErrors,
      leaseOwner: null,
      leaseUntil: null,
      ...retryState,
      ...(options.abandon ? { abandonedAt: now, alertedAt: null } : {}),
    },
    ...(options.abandon ? { $inc: { setAsideCount: 1 } } : {}),
  });
  await updateLeaseDocument(inbox, leaseDocumentId(lease.key, lease.generation), { $set: { releasedAt: clock() } });
  return matched;
}

/** The row's attempt errors with this one appended, the oldest dropped past {@link MAX_ATTEMPT_ERRORS}. */
async function appendedAttemptErrors(
  inbox: Inbox,
  key: string,
  failed: InboxAttemptError,
): Promise<InboxAttemptError[]> {
  const row = await inbox.events.findOne({ _id: key }, { projection: { attemptErrors: 1 } });
  return [...(row?.attemptErrors ?? []), failed].slice(-MAX_ATTEMPT_ERRORS);
}
