import { renewLease } from './leases/renew-lease';
import { updateEventRow } from './store/hot-path-writes';
import type { Lease } from './leases/lease-types';
import type { Clock, Inbox } from './types';

/** Options for {@link extendEventLease}. */
export interface ExtendEventLeaseOptions {
  inbox: Inbox;
  lease: Lease;
  leaseMs: number;
  clock: Clock;
}

/**
 * Keeps a running attempt's claim alive (`now + leaseMs`), in the lease collection and the event's `leaseUntil`
 * mirror. Returns false when the lease is no longer this owner's. The row is written by `{ _id }` alone (the filter
 * FerretDB 1.24 serves from an index): its lease holder is its only writer, and stops renewing before it records the
 * outcome.
 */
export async function extendEventLease(options: ExtendEventLeaseOptions): Promise<boolean> {
  const renewed = await renewLease({
    leases: options.inbox.leases,
    lease: options.lease,
    leaseMs: options.leaseMs,
    clock: options.clock,
  });
  if (!renewed) return false;
  await updateEventRow(options.inbox, options.lease.key, { $set: { leaseUntil: options.lease.until } });
  return true;
}
