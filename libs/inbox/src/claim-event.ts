import type { BerthLogger } from '@berth/logger';
import { isDuplicateKeyError } from '@berth/store';
import { newInboxRow } from './record-received-event';
import { leaseFree, leaseHolder } from './row-lease';
import type { Clock } from '@berth/contract';
import type { EventLease, Inbox, InboxEventDocument, WebhookEvent } from './types';

/** Options for {@link claimEvent}. */
export interface ClaimEventOptions {
  inbox: Inbox;
  /** The event's inbox key, `<provider>:<eventId>`. */
  key: string;
  /**
   * The event as delivered: with it, a claim of an event the inbox has no row for records it in the same write
   * (an upsert); without it, such a claim answers `missing`.
   */
  event?: WebhookEvent;
  /** This replica's id. */
  owner: string;
  /** How long the claim holds unless renewed ({@link extendEventLease}) or ended. */
  leaseMs: number;
  clock: Clock;
  logger?: BerthLogger;
}

/** What a claim found. Only `claimed` lets the caller run the handler. */
export type ClaimOutcome = 'claimed' | 'already_processed' | 'busy' | 'abandoned' | 'missing';

/** The result of {@link claimEvent}. */
export type ClaimResult =
  | { status: 'claimed'; event: InboxEventDocument; lease: EventLease; attempt: number }
  | { status: 'already_processed'; event: InboxEventDocument }
  | { status: 'abandoned'; event: InboxEventDocument }
  /** Another attempt holds a live lease; it ends (or is renewed) in `remainingMs`. */
  | { status: 'busy'; holder: string; remainingMs: number }
  /** No such event in the inbox. */
  | { status: 'missing' };

/**
 * Claims one attempt at an event, in one conditional write: when the row is neither processed nor set aside and its
 * lease is free or ran out, takes the lease (`leaseOwner`, `leaseUntil`), counts the attempt (`attempts + 1`,
 * `lastAttemptAt`) and returns the row as written. Exactly one of any number of concurrent claims gets `claimed`.
 *
 * Given the event, the first claim is an insert of the row already claimed, group-committed with the process's
 * other claims (`inbox.eventWrites`): a new event costs a share of one bulk write. When the row exists (the insert
 * finds its `_id` taken), the claim is the conditional update, an upsert in case the row was deleted meanwhile.
 *
 * A claim that matches nothing (an upsert refused with a duplicate key, or an update that matched no row) reads the
 * row to say why: processed, set aside, or busy until the holder's lease ends.
 */
export async function claimEvent(options: ClaimEventOptions): Promise<ClaimResult> {
  const { inbox, key, owner, leaseMs, clock } = options;
  const now = clock.now();
  const lease: EventLease = { key, owner, takenAt: now, until: new Date(now.getTime() + leaseMs) };
  if (options.event) {
    const first = claimedNewRow(options.event, lease, now);
    if ((await inbox.eventWrites.inserts.insert(first)) === 'inserted') {
      options.logger?.debug({ inboxAttempt: 1 }, 'Inbox event claimed');
      return { status: 'claimed', event: first, lease, attempt: 1 };
    }
  }
  let claimed: InboxEventDocument | null = null;
  try {
    claimed = await inbox.events.findOneAndUpdate(
      { _id: key, processedAt: null, abandonedAt: null, ...leaseFree(now) },
      {
        $inc: { attempts: 1 },
        $set: { lastAttemptAt: now, leaseOwner: owner, leaseUntil: lease.until },
        ...(options.event ? { $setOnInsert: insertedFields(options.event) } : {}),
      },
      { upsert: options.event !== undefined, returnDocument: 'after' },
    );
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  if (claimed) {
    options.logger?.debug({ inboxAttempt: claimed.attempts }, 'Inbox event claimed');
    return { status: 'claimed', event: claimed, lease, attempt: claimed.attempts };
  }
  return whyNotClaimed(inbox, key, now);
}

/** The row of an event seen for the first time, as the claim of its first attempt writes it. */
function claimedNewRow(event: WebhookEvent, lease: EventLease, now: Date): InboxEventDocument {
  return { ...newInboxRow(event), attempts: 1, lastAttemptAt: now, leaseOwner: lease.owner, leaseUntil: lease.until };
}

/** The fields an upserting claim writes only when it creates the row (the others are the claim's own). */
function insertedFields(event: WebhookEvent): Partial<InboxEventDocument> {
  const row: Partial<InboxEventDocument> = { ...newInboxRow(event) };
  // Written by the claim itself, or by the filter's equality on them.
  for (const field of ['_id', 'attempts', 'lastAttemptAt', 'leaseOwner', 'leaseUntil', 'processedAt', 'abandonedAt'])
    delete row[field as keyof InboxEventDocument];
  return row;
}

/** Why a claim matched no row, read from the row as it stands. */
async function whyNotClaimed(inbox: Inbox, key: string, now: Date): Promise<ClaimResult> {
  const row = await inbox.events.findOne({ _id: key }, { projection: { payload: 0 } });
  if (!row) return { status: 'missing' };
  if (row.processedAt) return { status: 'already_processed', event: row };
  if (row.abandonedAt) return { status: 'abandoned', event: row };
  return { status: 'busy', ...leaseHolder(row, now) };
}
