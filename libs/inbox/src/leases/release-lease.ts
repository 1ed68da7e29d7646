import type { Clock } from '../types';
import { leaseDocumentId, type Lease, type LeaseCollection } from './lease-types';

/** Options for {@link releaseLease}. */
export interface ReleaseLeaseOptions {
  leases: LeaseCollection;
  lease: Lease;
  clock: Clock;
}

/**
 * Lets go of a lease, so the next {@link acquireLease} on its key succeeds at once. Safe to call twice.
 *
 * The filter is exactly `{ _id }`, the only filter FerretDB 1.24 answers through an index (any other field makes it
 * scan the collection, which holds one document per attempt ever made). No owner condition is needed: a lease
 * document is written by its owner only, once inserted.
 */
export async function releaseLease(options: ReleaseLeaseOptions): Promise<void> {
  await options.leases.updateOne(
    { _id: leaseDocumentId(options.lease.key, options.lease.generation) },
    { $set: { releasedAt: options.clock() } },
  );
}
