import { leaseSuperseded } from './leases/lease-superseded';
import { leaseDocumentId, type Lease } from './leases/lease-types';
import { updateEventRow, updateLeaseDocument } from './store/hot-path-writes';
import type { Clock, Inbox } from './types';

/** Options for {@link markProcessed}. */
export interface MarkProcessedOptions {
  inbox: Inbox;
  /** The lease of the attempt that succeeded, from {@link claimEvent}. */
  lease: Lease;
  clock: Clock;
}

/**
 * Sets `processedAt` and clears the lease mirror; then releases the lease. The event is written before the lease is
 * released, so a replica that takes the next lease reads `processedAt` and skips. Resolves false, writing nothing,
 * when the lease had expired and another attempt took the next one (the caller must not ack as if it had recorded
 * the success), or when the event is gone.
 *
 * Both writes are by `{ _id }` alone, the one filter FerretDB 1.24 serves from an index. Only the holder of an
 * event's current lease writes its row (the lease, inserted under a unique `_id`, is the atomic guard on MongoDB and
 * FerretDB alike), so no field condition is needed beside it; a holder whose lease expired is caught by
 * {@link leaseSuperseded}.
 */
export async function markProcessed(options: MarkProcessedOptions): Promise<boolean> {
  const { inbox, lease, clock } = options;
  if (await leaseSuperseded(inbox.leases, lease, clock)) return false;
  const matched = await updateEventRow(inbox, lease.key, { $set: { processedAt: clock(), leaseOwner: null, leaseUntil: null } });
  await updateLeaseDocument(inbox, leaseDocumentId(lease.key, lease.generation), { $set: { releasedAt: clock() } });
  return matched;
}
