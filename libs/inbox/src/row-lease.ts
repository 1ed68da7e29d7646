import type { Filter } from 'mongodb';
import type { EventLease, InboxEventDocument } from './types';

/**
 * The filter of a row whose lease can be taken at `now`: nobody holds it, or its holder's lease ran out. A claim and
 * an inbox operation take the lease with one conditional update on `{ _id, ...leaseFree(now) }`: the store lets one
 * of any number of concurrent updates match.
 */
export function leaseFree(now: Date): Filter<InboxEventDocument> {
  return { $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }] };
}

/**
 * The filter of the row while `lease` is still the one it records: every write of a lease holder carries it, so a
 * holder whose lease was taken over (it ran out, and another claim took it) writes nothing.
 */
export function heldBy(lease: EventLease): Filter<InboxEventDocument> {
  return { _id: lease.key, leaseOwner: lease.owner, leaseUntil: lease.until };
}

/** The row's lease fields once its holder lets go. */
export const LEASE_RELEASED = { leaseOwner: null, leaseUntil: null } as const;

/**
 * Who holds a row's lease and for how long yet, as a claim or an operation that could not take it reports it; a
 * lease that ran out since the write that missed reads as ending now.
 */
export function leaseHolder(
  row: Pick<InboxEventDocument, 'leaseOwner' | 'leaseUntil'>,
  now: Date,
): { holder: string; remainingMs: number } {
  return {
    holder: row.leaseOwner ?? 'unknown',
    remainingMs: Math.max((row.leaseUntil?.getTime() ?? 0) - now.getTime(), 0),
  };
}
