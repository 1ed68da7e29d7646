import type { Clock } from '../types';
import { leaseDocumentId, type Lease, type LeaseCollection } from './lease-types';

/** Options for {@link renewLease}. */
export interface RenewLeaseOptions {
  leases: LeaseCollection;
  lease: Lease;
  leaseMs: number;
  clock: Clock;
}

/**
 * Pushes the lease's end to `now + leaseMs` while its owner still works. Only the owner writes its own lease
 * document, so this plain update is safe on FerretDB too. Returns false when the lease was released or is gone.
 */
export async function renewLease(options: RenewLeaseOptions): Promise<boolean> {
  const until = new Date(options.clock().getTime() + options.leaseMs);
  const result = await options.leases.updateOne(
    { _id: leaseDocumentId(options.lease.key, options.lease.generation), owner: options.lease.owner, releasedAt: null },
    { $set: { until } },
  );
  if (result.matchedCount === 0) return false;
  options.lease.until = until;
  return true;
}
