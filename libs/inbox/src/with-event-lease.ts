import { acquireLease } from './leases/acquire-lease';
import { releaseLease } from './leases/release-lease';
import type { Lease } from './leases/lease-types';
import { rowLeaseOf, type RowLeaseFields } from './row-lease';
import type { Clock, Inbox } from './types';

/** Options for {@link withEventLease}. */
export interface WithEventLeaseOptions {
  inbox: Inbox;
  /** `<provider>:<eventId>`. */
  key: string;
  /** Who writes: `recovery:<replica>`, `berth-cli:<host>:<pid>`… Shown to a consumer that finds the event busy. */
  owner: string;
  /** Longer than the work done under it can take; released as soon as it is done. */
  leaseMs: number;
  clock: Clock;
  /**
   * The row as last read, with at least `ROW_LEASE_FIELDS`: its `leaseGeneration` is where the lease lookup
   * starts, and its mirror stands in for a generation that has no lease document (see `rowLeaseOf`).
   */
  known: RowLeaseFields;
}

/** What {@link withEventLease} got: the work's result, or who held the event. */
export type WithEventLeaseResult<T> =
  { acquired: true; value: T } | { acquired: false; holder: string; remainingMs: number };

/**
 * Runs `work` while holding the event's lease, the same lease an attempt claims, then releases it. The inbox
 * operations write an event row only this way: on FerretDB 1.24 an update writes back the whole document it read,
 * so a write racing an attempt's (`processedAt`, `attempts`) could undo it. Holding the lease makes the writer the
 * only one; a consumer delivered the event meanwhile gets "busy" and retries after the lease. `work` must read the
 * row again under the lease before deciding anything, and write `leaseGeneration: lease.generation` with its update.
 */
export async function withEventLease<T>(
  options: WithEventLeaseOptions,
  work: (lease: Lease) => Promise<T>,
): Promise<WithEventLeaseResult<T>> {
  const { inbox, key, owner, leaseMs, clock } = options;
  const acquired = await acquireLease({
    leases: inbox.leases,
    key,
    owner,
    leaseMs,
    clock,
    generationHint: options.known.leaseGeneration ?? 1,
    rowLease: rowLeaseOf(options.known),
  });
  if (!acquired.acquired) return { acquired: false, holder: acquired.holder, remainingMs: acquired.remainingMs };
  try {
    return { acquired: true, value: await work(acquired.lease) };
  } finally {
    await releaseLease({ leases: inbox.leases, lease: acquired.lease, clock });
  }
}
