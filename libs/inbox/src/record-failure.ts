import { describeError } from '@berth/messaging';
import { releaseLease } from './leases/release-lease';
import type { Lease } from './leases/lease-types';
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
}

/**
 * Records a failed attempt: `lastError`, lease mirror cleared (and `abandonedAt` when asked), only while this owner
 * holds the event; then releases the lease so the retry can claim at once. Resolves false when the lease was lost.
 */
export async function recordFailure(options: RecordFailureOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  const now = clock();
  const lastError = describeError(options.error).slice(0, MAX_LAST_ERROR_LENGTH);
  const result = await inbox.events.updateOne(
    { _id: lease.key, leaseOwner: lease.owner, processedAt: null },
    { $set: { lastError, leaseOwner: null, leaseUntil: null, ...(options.abandon ? { abandonedAt: now } : {}) } },
  );
  await releaseLease({ leases: inbox.leases, lease, clock });
  return result.matchedCount === 1;
}
