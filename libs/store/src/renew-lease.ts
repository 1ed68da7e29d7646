import type { Clock } from '@berth/contract';
import type { Lease, LeaseCollection } from './lease';

/** Options for {@link renewLease}. */
export interface RenewLeaseOptions {
  leases: LeaseCollection;
  lease: Lease;
  leaseMs: number;
  clock: Clock;
}

/**
 * Pushes the lease's end to `now + leaseMs` while its holder still works, by one conditional update fenced on the
 * exact lease: `{ _id, owner, until: lease.until }`, and still live. Returns the renewed lease, or undefined when it
 * was released, has run out or was taken over (another holder's lease has another `until`, even under the same
 * owner name): once a lease has run out another replica may hold the key, so a renewal never revives it.
 */
export async function renewLease(options: RenewLeaseOptions): Promise<Lease | undefined> {
  const { leases, lease, leaseMs, clock } = options;
  const now = clock.now();
  if (lease.until.getTime() <= now.getTime()) return undefined;
  const until = new Date(now.getTime() + leaseMs);
  const result = await leases.updateOne(
    { _id: lease.key, owner: lease.owner, until: { $eq: lease.until, $gt: now } },
    { $set: { until } },
  );
  return result.matchedCount === 1 ? { key: lease.key, owner: lease.owner, until } : undefined;
}
