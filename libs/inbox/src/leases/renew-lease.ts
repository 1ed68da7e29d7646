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
 * Pushes the lease's end to `now + leaseMs` while its owner still works. Returns false when the lease was released,
 * is gone (or not this owner's) or has run out: once it has, another claimer may hold the next generation.
 *
 * Read, then written by `{ _id }` alone (the filter FerretDB 1.24 serves from an index): the check and the write are
 * two steps, which is safe because only the owner writes its lease document once inserted, and it renews and
 * releases one at a time (see `keepLeaseAlive`).
 */
export async function renewLease(options: RenewLeaseOptions): Promise<boolean> {
  if (options.lease.until.getTime() <= options.clock().getTime()) return false;
  const _id = leaseDocumentId(options.lease.key, options.lease.generation);
  const current = await options.leases.findOne({ _id });
  if (!current || current.owner !== options.lease.owner || current.releasedAt !== null) return false;
  const until = new Date(options.clock().getTime() + options.leaseMs);
  const result = await options.leases.updateOne({ _id }, { $set: { until } });
  if (result.matchedCount === 0) return false;
  options.lease.until = until;
  return true;
}
