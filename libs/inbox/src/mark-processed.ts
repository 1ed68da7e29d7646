import { releaseLease } from './leases/release-lease';
import type { Lease } from './leases/lease-types';
import type { Clock, Inbox } from './types';

/** Options for {@link markProcessed}. */
export interface MarkProcessedOptions {
  inbox: Inbox;
  /** The lease of the attempt that succeeded, from {@link claimEvent}. */
  lease: Lease;
  clock: Clock;
}

/**
 * Sets `processedAt` and clears the lease mirror, only if the event is still leased by this owner and not yet
 * processed; then releases the lease. The event is written before the lease is released, so a replica that takes the
 * next lease reads `processedAt` and skips. Resolves false when the owner had lost the lease (another attempt took
 * over after it expired): the caller must not ack as if it had recorded the success.
 */
export async function markProcessed(options: MarkProcessedOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  const result = await inbox.events.updateOne(
    { _id: lease.key, leaseOwner: lease.owner, processedAt: null },
    { $set: { processedAt: clock(), leaseOwner: null, leaseUntil: null } },
  );
  await releaseLease({ leases: inbox.leases, lease, clock });
  return result.matchedCount === 1;
}
