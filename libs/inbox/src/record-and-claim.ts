import type { BerthLogger } from '@berth/logger';
import { claimEvent, claimUnderLease, type ClaimResult } from './claim-event';
import { inboxEventKey } from './collections';
import { leaseDocumentId, type Lease } from './leases/lease-types';
import { releaseLease } from './leases/release-lease';
import { newInboxRow, recordReceivedEvent } from './record-received-event';
import { insertEventRow, insertLeaseDocument } from './store/hot-path-writes';
import type { Clock, Inbox, InboxEventDocument, WebhookEvent } from './types';

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
 * Records an event and claims its attempt, in two inserts when the event is new (the common case under load):
 * 1. insert the event's first lease, `<key>#1`: its unique `_id` makes this the one first attempt, on MongoDB and
 *    FerretDB alike (the atomic guard of every claim, see `acquireLease`);
 * 2. insert the row already claimed (`attempts: 1`, lease mirrored). It is written before the handler runs, as
 *    every row is, so the recovery cron knows the event even if this process dies now.
 * When `<key>#1` exists (a redelivery, another replica, an operator's operation) it records the row if missing and
 * claims as {@link claimEvent} does. When the row exists but `<key>#1` did not (a row recorded by a delivery that
 * died before its lease, or whose leases retention deleted), the lease is used only if the row took no later one.
 *
 * Compared with record → read → take lease → read → update, a new event costs two inserts instead of two writes,
 * two reads and a conditional update, every one by `_id` (the filters FerretDB 1.24 answers from an index).
 */
export async function recordAndClaimEvent(options: RecordAndClaimOptions): Promise<ClaimResult> {
  const { inbox, event, owner, leaseMs, clock } = options;
  const key = inboxEventKey(event.provider, event.eventId);
  const now = clock();
  const lease: Lease = { key, generation: 1, owner, until: new Date(now.getTime() + leaseMs) };
  const leased = await insertLeaseDocument(inbox, {
    _id: leaseDocumentId(key, 1),
    key,
    generation: 1,
    owner,
    acquiredAt: now,
    until: lease.until,
    releasedAt: null,
  });
  if (leased === 'duplicate') {
    await recordReceivedEvent({ inbox, event });
    return claimEvent({ inbox, key, owner, leaseMs, clock, logger: options.logger });
  }
  const row: InboxEventDocument = {
    ...newInboxRow(event),
    attempts: 1,
    lastAttemptAt: now,
    leaseOwner: owner,
    leaseUntil: lease.until,
    leaseGeneration: 1,
  };
  if ((await insertEventRow(inbox, row)) === 'inserted') {
    options.logger?.debug({ inboxAttempt: 1, leaseGeneration: 1 }, 'Inbox event recorded and claimed');
    return { status: 'claimed', event: row, lease, attempt: 1 };
  }
  const existing = await inbox.events.findOne({ _id: key });
  if (existing && (existing.leaseGeneration ?? 0) >= lease.generation) {
    await releaseLease({ leases: inbox.leases, lease, clock });
    return claimEvent({ inbox, key, owner, leaseMs, clock, logger: options.logger });
  }
  return claimUnderLease({ inbox, key, owner, leaseMs, clock, logger: options.logger, lease });
}
