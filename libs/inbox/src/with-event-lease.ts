import { heldBy, leaseFree, leaseHolder, LEASE_RELEASED } from './row-lease';
import type { Clock } from '@berth/contract';
import type { EventLease, Inbox, InboxEventDocument } from './types';

/** Options for {@link withEventLease}. */
export interface WithEventLeaseOptions {
  inbox: Inbox;
  /** `<provider>:<eventId>`. */
  key: string;
  /** Who writes: `inbox-op:recovery:<replica>`… Shown to a consumer that finds the event busy. */
  owner: string;
  /** Longer than the work done under it can take; released as soon as it is done. */
  leaseMs: number;
  clock: Clock;
}

/** What {@link withEventLease} got: the work's result, or who held the event (or that there is no such row). */
export type WithEventLeaseResult<T> =
  { acquired: true; value: T } | { acquired: false; holder: string | null; remainingMs: number };

/**
 * Runs `work` while holding the event row's lease, the same lease an attempt claims, then releases it. The inbox
 * operations (recovery, retry-abandoned, redeliver, a resend's reopen) decide on the row as it was just before they
 * took the lease, and fence their writes with {@link heldBy}: an attempt cannot start meanwhile (a consumer delivered the
 * event gets "busy" and retries after the lease), and no attempt's write can land between their read and write.
 */
export async function withEventLease<T>(
  options: WithEventLeaseOptions,
  work: (lease: EventLease, row: InboxEventDocument) => Promise<T>,
): Promise<WithEventLeaseResult<T>> {
  const { inbox, key, owner, leaseMs, clock } = options;
  const now = clock.now();
  const lease: EventLease = { key, owner, takenAt: now, until: new Date(now.getTime() + leaseMs) };
  const row = await inbox.events.findOneAndUpdate(
    { _id: key, ...leaseFree(now) },
    { $set: { leaseOwner: owner, leaseUntil: lease.until } },
    // The row as it was when the lease was taken: what the work decides on (its lease fields are the previous
    // holder's, which the recovery's live-message rule reads).
    { returnDocument: 'before' },
  );
  if (!row) {
    const held = await inbox.events.findOne({ _id: key }, { projection: { leaseOwner: 1, leaseUntil: 1 } });
    return held ? { acquired: false, ...leaseHolder(held, now) } : { acquired: false, holder: null, remainingMs: 0 };
  }
  try {
    return { acquired: true, value: await work(lease, row) };
  } finally {
    await inbox.events.updateOne(heldBy(lease), { $set: LEASE_RELEASED });
  }
}
