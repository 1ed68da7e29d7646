import type { BerthLogger } from '@berth/logger';
import { acquireLease } from './leases/acquire-lease';
import { claimEvent, claimUnderLease, type ClaimResult } from './claim-event';
import { inboxEventKey } from './collections';
import { leaseDocumentId, leaseDocumentOf } from './leases/lease-types';
import { newInboxRow } from './record-received-event';
import { deleteLeaseDocument, insertEventRow, insertLeaseDocument } from './store/hot-path-writes';
import type { Clock, EventLease, Inbox, InboxEventDocument, WebhookEvent } from './types';

/** Options for {@link recordAndClaimEvent}. */
export interface RecordAndClaimOptions {
  inbox: Inbox;
  event: WebhookEvent;
  owner: string;
  leaseMs: number;
  clock: Clock;
  logger?: BerthLogger;
}

/**
 * Claims the first attempt of a new event by inserting its first lease document, `<key>#1` (unique `_id`, so one
 * claimer wins on MongoDB and FerretDB alike), and leaves the row unwritten until the attempt ends: the claim's lease
 * carries it (`EventLease.unwrittenRow`), and `markProcessed` inserts it processed, `recordFailure` failed, a first
 * renewal (`extendEventLease`) as it stands. An event processed at its first try thus costs two inserts, both
 * group-committed with those of concurrent events, and no update: on FerretDB 1.24 each update is a transaction of
 * its own (a read, a rewrite of the row with every index, a commit), the costliest write of the hot path.
 *
 * Holding `<key>#1`, this attempt is the one that may write the row first: every other claimer finds `<key>#1` and
 * waits for it to end. One read checks that the event has no row yet; a row written without that lease (by
 * `recordReceivedEvent`, by a version of Berth that kept the first lease in the row, or one whose `<key>#1` was
 * deleted with the retention's old leases) is claimed as any redelivery is, the lease just inserted deleted again.
 *
 * When `<key>#1` exists (a redelivery, another replica), it claims as {@link claimEvent} does. An event with a first
 * lease but no row is one whose first attempt is running (the claim is `busy`) or ended without writing its row (its
 * process died, or the store refused the write): the next claimer takes the next lease generation, records the row
 * with the attempts the generations count, and claims it. So does an insert that outlasted its lease (a stalled
 * store): another claimer may already hold generation 2. Until the first attempt ends, the event is known to
 * JetStream (which redelivers it unless acknowledged) and to the lease collection, not yet to the inbox's listings.
 */
export async function recordAndClaimEvent(options: RecordAndClaimOptions): Promise<ClaimResult> {
  const { inbox, event, owner, leaseMs, clock } = options;
  const key = inboxEventKey(event.provider, event.eventId);
  const now = clock();
  const lease: EventLease = { key, generation: 1, owner, until: new Date(now.getTime() + leaseMs) };
  const inserted = (await insertLeaseDocument(inbox, leaseDocumentOf(lease, now))) === 'inserted';
  if (inserted && clock().getTime() < lease.until.getTime()) {
    if ((await inbox.events.findOne({ _id: key }, { projection: { _id: 1 } })) === null) {
      lease.unwrittenRow = firstAttemptRow(event, lease, now);
      options.logger?.debug({ inboxAttempt: 1, leaseGeneration: 1 }, 'Inbox event claimed');
      return { status: 'claimed', event: lease.unwrittenRow, lease, attempt: 1 };
    }
    // Deleted, not released: a row that holds its first lease itself (an earlier version's) is read in its place.
    await deleteLeaseDocument(inbox, leaseDocumentId(key, 1));
  }
  const claim = await claimEvent({ inbox, key, owner, leaseMs, clock, logger: options.logger });
  return claim.status === 'missing' ? claimUnrecordedEvent(options, key) : claim;
}

/** The row of a first attempt claimed under `lease` at `now`. */
function firstAttemptRow(event: WebhookEvent, lease: EventLease, now: Date): InboxEventDocument {
  return {
    ...newInboxRow(event),
    attempts: 1,
    lastAttemptAt: now,
    leaseOwner: lease.owner,
    leaseUntil: lease.until,
    leaseGeneration: 1,
    firstAttempt: { owner: lease.owner, at: now },
  };
}

/**
 * Claims an event that has a first lease and no row, as described at {@link recordAndClaimEvent}: the next
 * generation's lease, then the row (attempts: the generations before this one), then the claim under that lease.
 * A row that appeared meanwhile (the first attempt's, landing late) makes the insert a duplicate, and the claim then
 * reads it as it stands.
 */
async function claimUnrecordedEvent(options: RecordAndClaimOptions, key: string): Promise<ClaimResult> {
  const { inbox, owner, leaseMs, clock } = options;
  const acquired = await acquireLease({ leases: inbox.leases, key, owner, leaseMs, clock, generationHint: 1 });
  if (!acquired.acquired) return { status: 'busy', holder: acquired.holder, remainingMs: acquired.remainingMs };
  await insertEventRow(inbox, { ...newInboxRow(options.event), attempts: acquired.lease.generation - 1 });
  return claimUnderLease({ inbox, key, owner, leaseMs, clock, logger: options.logger, lease: acquired.lease });
}
