import { leaseDocumentOf, type Lease } from './leases/lease-types';
import { renewLease } from './leases/renew-lease';
import { insertLeaseDocument, updateEventRow } from './store/hot-path-writes';
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
 *
 * A first attempt's lease, held by its row alone, gets its document here, on its first renewal: from then on it is
 * renewed as any other. Only a lease still live is written down; once expired, another claimer may have taken the
 * next generation from the row.
 */
export async function extendEventLease(options: ExtendEventLeaseOptions): Promise<boolean> {
  const renewed = options.lease.heldByRow
    ? await writeRowLeaseDown(options)
    : await renewLease({
        leases: options.inbox.leases,
        lease: options.lease,
        leaseMs: options.leaseMs,
        clock: options.clock,
      });
  if (!renewed) return false;
  await updateEventRow(options.inbox, options.lease.key, { $set: { leaseUntil: options.lease.until } });
  return true;
}

/** Inserts the document of a lease its row held, until `now + leaseMs`; false when the lease had run out. */
async function writeRowLeaseDown(options: ExtendEventLeaseOptions): Promise<boolean> {
  const { inbox, lease, leaseMs, clock } = options;
  const now = clock();
  if (lease.until.getTime() <= now.getTime()) return false;
  const until = new Date(now.getTime() + leaseMs);
  const acquiredAt = new Date(lease.until.getTime() - leaseMs);
  const inserted = await insertLeaseDocument(inbox, leaseDocumentOf({ ...lease, until }, acquiredAt));
  if (inserted === 'duplicate') return false;
  lease.heldByRow = false;
  lease.until = until;
  return true;
}
