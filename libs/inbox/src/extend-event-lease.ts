import { heldBy } from './row-lease';
import type { Clock } from '@berth/contract';
import type { EventLease, Inbox } from './types';

/** Options for {@link extendEventLease}. */
export interface ExtendEventLeaseOptions {
  inbox: Inbox;
  lease: EventLease;
  leaseMs: number;
  clock: Clock;
}

/**
 * Keeps a running attempt's claim alive (`leaseUntil` = now + `leaseMs`), in one write fenced by the lease and by
 * its not having run out: a lease that ran out may already be another claim's, and is never revived. Returns false
 * when the lease is no longer this holder's. On success `lease.until` is moved, so the holder's next writes are
 * fenced by the new value.
 */
export async function extendEventLease(options: ExtendEventLeaseOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  const now = clock.now();
  if (lease.until.getTime() <= now.getTime()) return false;
  const until = new Date(now.getTime() + options.leaseMs);
  const renewed = await inbox.events.updateOne(
    { ...heldBy(lease), processedAt: null },
    { $set: { leaseUntil: until } },
  );
  if (renewed.matchedCount !== 1) return false;
  lease.until = until;
  return true;
}
