import { renewLease } from './leases/renew-lease';
import { updateEventRow } from './store/hot-path-writes';
import type { Clock, EventLease, Inbox } from './types';
import { writeUnwrittenRow } from './unwritten-row';

/** Options for {@link extendEventLease}. */
export interface ExtendEventLeaseOptions {
  inbox: Inbox;
  lease: EventLease;
  leaseMs: number;
  clock: Clock;
}

/**
 * Keeps a running attempt's claim alive (`now + leaseMs`), in the lease collection and the event's `leaseUntil`
 * mirror. Returns false when the lease is no longer this owner's. The row is written by `{ _id }` alone (the filter
 * FerretDB 1.24 serves from an index): its lease holder is its only writer, and stops renewing before it records the
 * outcome.
 *
 * A first attempt's row, not written yet (`recordAndClaimEvent`), is written here, on its first renewal: an attempt
 * that runs past a third of its lease shows in the inbox's listings while it runs.
 */
export async function extendEventLease(options: ExtendEventLeaseOptions): Promise<boolean> {
  const { inbox, lease } = options;
  const renewed = await renewLease({
    leases: inbox.leases,
    lease,
    leaseMs: options.leaseMs,
    clock: options.clock,
  });
  if (!renewed) return false;
  if ((await writeUnwrittenRow(inbox, lease, { leaseUntil: lease.until })) === 'inserted') return true;
  await updateEventRow(inbox, lease.key, { $set: { leaseUntil: lease.until } });
  return true;
}
