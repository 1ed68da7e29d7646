import { describeError } from '@berth/messaging';
import { leaseSuperseded } from './leases/lease-superseded';
import { leaseDocumentId, type Lease } from './leases/lease-types';
import { updateEventRow, updateLeaseDocument } from './store/hot-path-writes';
import type { Clock, Inbox } from './types';

/** How much of an error message the inbox keeps. */
export const MAX_LAST_ERROR_LENGTH = 2000;

/** Options for {@link recordFailure}. */
export interface RecordFailureOptions {
  inbox: Inbox;
  /** The lease of the attempt that failed. */
  lease: Lease;
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
 * Records a failed attempt: `lastError`, lease mirror cleared, the retry state (when `next` says) and `abandonedAt`
 * (when asked), only while this owner holds the event; then releases the lease so the retry can claim at once.
 * Resolves false, writing nothing, when the lease had expired and another attempt took the next one. Written by
 * `{ _id }` alone, as {@link markProcessed} explains.
 *
 * A set-aside counts in `setAsideCount` and leaves `alertedAt` null: the recovery cron raises its one alert.
 */
export async function recordFailure(options: RecordFailureOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  if (await leaseSuperseded(inbox.leases, lease, clock)) return false;
  const now = clock();
  const lastError = describeError(options.error).slice(0, MAX_LAST_ERROR_LENGTH);
  const { next } = options;
  const retryState =
    options.abandon || next === 'round-ended' ? { nextAttemptAt: null, roundEndedAt: now }
    : next ? { nextAttemptAt: next.retryAt, roundEndedAt: null }
    : {};
  const matched = await updateEventRow(
    inbox,
    lease.key,
    {
      $set: { lastError, leaseOwner: null, leaseUntil: null, ...retryState, ...(options.abandon ? { abandonedAt: now, alertedAt: null } : {}) },
      ...(options.abandon ? { $inc: { setAsideCount: 1 } } : {}),
    },
  );
  await updateLeaseDocument(inbox, leaseDocumentId(lease.key, lease.generation), { $set: { releasedAt: clock() } });
  return matched;
}
