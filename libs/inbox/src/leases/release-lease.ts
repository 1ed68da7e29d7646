import type { Clock } from '../types';
import { leaseDocumentId, type Lease, type LeaseCollection } from './lease-types';

/** Options for {@link releaseLease}. */
export interface ReleaseLeaseOptions {
  leases: LeaseCollection;
  lease: Lease;
  clock: Clock;
}

/** Lets go of a lease, so the next {@link acquireLease} on its key succeeds at once. Safe to call twice. */
export async function releaseLease(options: ReleaseLeaseOptions): Promise<void> {
  await options.leases.updateOne(
    { _id: leaseDocumentId(options.lease.key, options.lease.generation), owner: options.lease.owner, releasedAt: null },
    { $set: { releasedAt: options.clock() } },
  );
}
