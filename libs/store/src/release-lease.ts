import type { Clock } from '@berth/contract';
import type { Lease, LeaseCollection } from './lease';

/** Options for {@link releaseLease}. */
export interface ReleaseLeaseOptions {
  leases: LeaseCollection;
  lease: Lease;
  clock: Clock;
}

/**
 * Lets go of a lease, so the next {@link acquireLease} of its key succeeds at once: one conditional update fenced on
 * the exact lease (`{ _id, owner, until: lease.until }`) that ends it now. True when it was released; false when it
 * had been released already or taken over after it ran out (then the new holder's lease is left alone). Safe to
 * call twice.
 */
export async function releaseLease(options: ReleaseLeaseOptions): Promise<boolean> {
  const { leases, lease } = options;
  const now = options.clock.now();
  const result = await leases.updateOne(
    { _id: lease.key, owner: lease.owner, until: lease.until },
    { $set: { until: now, releasedAt: now } },
  );
  return result.matchedCount === 1;
}
