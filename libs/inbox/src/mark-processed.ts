import { leaseSuperseded } from './leases/lease-superseded';
import { updateEventRow } from './store/hot-path-writes';
import type { Clock, EventLease, Inbox } from './types';
import { writeUnwrittenRow } from './unwritten-row';

/** Options for {@link markProcessed}. */
export interface MarkProcessedOptions {
  inbox: Inbox;
  /** The lease of the attempt that succeeded, from {@link claimEvent}. */
  lease: EventLease;
  clock: Clock;
}

/**
 * Sets `processedAt` and clears the lease mirror: in the row a first attempt left unwritten, inserted so
 * (`recordAndClaimEvent`), or in the row as it stands. Resolves false, writing nothing, when the lease had expired and
 * another attempt took the next one (the caller must not ack as if it had recorded the success), or when the event is
 * gone.
 *
 * The lease is left to end at its `until` rather than released: once `processedAt` is written it guards nothing,
 * because every claim (`claimEvent`, `recordAndClaimEvent`) and every inbox operation (recovery, retry-abandoned,
 * redeliver) reads `processedAt` before it looks at a lease. That saves the hot path one write per event. A failed
 * attempt still releases its lease (`recordFailure`), so its retry can claim at once.
 *
 * The write is by `{ _id }` alone, the one filter FerretDB 1.24 serves from an index. Only the holder of an
 * event's current lease writes its row (the lease, inserted under a unique `_id`, is the atomic guard on MongoDB and
 * FerretDB alike), so no field condition is needed beside it; a holder whose lease expired is caught by
 * {@link leaseSuperseded}.
 */
export async function markProcessed(options: MarkProcessedOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  if (await leaseSuperseded(inbox.leases, lease, clock)) return false;
  const processed = { processedAt: clock(), leaseOwner: null, leaseUntil: null };
  const written = await writeUnwrittenRow(inbox, lease, processed);
  if (written === 'inserted') return true;
  // The event was recorded meanwhile: by hand, or by a claimer of the next generation once this lease ran out.
  if (written === 'duplicate' && (await leaseSuperseded(inbox.leases, lease, clock))) return false;
  return updateEventRow(inbox, lease.key, { $set: processed });
}
