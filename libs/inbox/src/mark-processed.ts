import { heldBy, LEASE_RELEASED } from './row-lease';
import type { Clock } from '@berth/contract';
import type { EventLease, Inbox } from './types';

/** Options for {@link markProcessed}. */
export interface MarkProcessedOptions {
  inbox: Inbox;
  /** The lease of the attempt that succeeded, from {@link claimEvent}. */
  lease: EventLease;
  /** That attempt's number, kept in `processedBy`. */
  attempt: number;
  clock: Clock;
}

/**
 * Records the attempt's success: `processedAt`, `processedBy`, the lease released and the retry state cleared, in
 * one write fenced by the attempt's lease, group-committed with the process's other inbox writes. Resolves false,
 * writing nothing, when the lease is no longer this attempt's (it ran out and another claim took it): the caller
 * must not ack as if it had recorded the success.
 * A lease that ran out without being taken over is still this attempt's, and its success is recorded.
 */
export async function markProcessed(options: MarkProcessedOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  const processedBy = { attempt: options.attempt, owner: lease.owner, startedAt: lease.takenAt };
  const written = await inbox.eventWrites.updates.updateOne(heldBy(lease), {
    $set: { processedAt: clock.now(), processedBy, nextAttemptAt: null, ...LEASE_RELEASED },
  });
  if (written !== 'uncertain') return written === 'matched';
  // The group's bulk write matched some of its updates, not saying which: the row shows whether it was this one.
  const row = await inbox.events.findOne({ _id: lease.key }, { projection: { processedBy: 1 } });
  return (
    row?.processedBy?.attempt === processedBy.attempt &&
    row.processedBy.owner === processedBy.owner &&
    row.processedBy.startedAt?.getTime() === processedBy.startedAt.getTime()
  );
}
