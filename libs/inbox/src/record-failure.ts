import { describeError } from '@berth/messaging';
import { heldBy, LEASE_RELEASED } from './row-lease';
import type { Clock } from '@berth/contract';
import { MAX_ATTEMPT_ERRORS, type EventLease, type Inbox, type InboxAttemptError } from './types';

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
 * Records a failed attempt in one write fenced by the attempt's lease: `lastError`, the attempt's error appended
 * to `attemptErrors` (`$push` with `$slice`: the last {@link MAX_ATTEMPT_ERRORS} kept), the lease released so the
 * retry can claim at once, the retry state (when `next` says) and `abandonedAt` (when asked). Resolves false,
 * writing nothing, when the lease is no longer this attempt's.
 *
 * A set-aside counts in `setAsideCount` and leaves `alertedAt` null: the recovery cron raises its one alert.
 */
export async function recordFailure(options: RecordFailureOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  const now = clock.now();
  const lastError = describeError(options.error).slice(0, MAX_LAST_ERROR_LENGTH);
  const { next } = options;
  const retryState =
    options.abandon || next === 'round-ended'
      ? { nextAttemptAt: null, roundEndedAt: now }
      : next
        ? { nextAttemptAt: next.retryAt, roundEndedAt: null }
        : {};
  const failed: InboxAttemptError = {
    attempt: options.attempt,
    at: now,
    error: lastError,
    owner: lease.owner,
    startedAt: lease.takenAt,
  };
  const written = await inbox.events.updateOne(heldBy(lease), {
    $set: {
      lastError,
      ...LEASE_RELEASED,
      ...retryState,
      ...(options.abandon ? { abandonedAt: now, alertedAt: null } : {}),
    },
    $push: { attemptErrors: { $each: [failed], $slice: -MAX_ATTEMPT_ERRORS } },
    ...(options.abandon ? { $inc: { setAsideCount: 1 } } : {}),
  });
  return written.matchedCount === 1;
}
