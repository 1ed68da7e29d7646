import type { BerthLogger } from '@berth/logger';
import { claimEvent, type ClaimResult } from './claim-event';
import { inboxEventKey } from './collections';
import type { Lease } from './leases/lease-types';
import { newInboxRow } from './record-received-event';
import { insertEventRow } from './store/hot-path-writes';
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
 * Records an event and claims its first attempt in one insert when the event is new (the common case under load):
 * the row is inserted already claimed (`attempts: 1`, `leaseGeneration: 1`, `leaseOwner`, `leaseUntil`). Its unique
 * `_id` makes this the one first attempt, on MongoDB and FerretDB alike, and the row is the lease: generation 1 has
 * no lease document until the attempt first renews it (`extendEventLease`), and every other claimer and inbox
 * operation reads the row's mirror in its place (`acquireLease`'s `rowLease`). The row is written before the
 * handler runs, as every row is, so the recovery cron knows the event even if this process dies now.
 *
 * When the row exists (a redelivery, another replica, an operator's operation) it claims as {@link claimEvent} does.
 * So does an insert that outlasted the lease (a stalled store): another claimer may already take generation 2.
 *
 * Compared with a lease insert then a row insert, a new event costs one insert of the store's three writes per
 * event, by `_id` (the filter FerretDB 1.24 answers from an index).
 */
export async function recordAndClaimEvent(options: RecordAndClaimOptions): Promise<ClaimResult> {
  const { inbox, event, owner, leaseMs, clock } = options;
  const key = inboxEventKey(event.provider, event.eventId);
  const now = clock();
  const lease: Lease = { key, generation: 1, owner, until: new Date(now.getTime() + leaseMs), heldByRow: true };
  const row: InboxEventDocument = {
    ...newInboxRow(event),
    attempts: 1,
    lastAttemptAt: now,
    leaseOwner: owner,
    leaseUntil: lease.until,
    leaseGeneration: 1,
    firstAttempt: { owner, at: now },
  };
  if ((await insertEventRow(inbox, row)) === 'inserted' && clock().getTime() < lease.until.getTime()) {
    options.logger?.debug({ inboxAttempt: 1, leaseGeneration: 1 }, 'Inbox event recorded and claimed');
    return { status: 'claimed', event: row, lease, attempt: 1 };
  }
  return claimEvent({ inbox, key, owner, leaseMs, clock, logger: options.logger });
}
