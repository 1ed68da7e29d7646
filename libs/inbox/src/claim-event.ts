import type { BerthLogger } from '@berth/logger';
import { acquireLease } from './leases/acquire-lease';
import { releaseLease } from './leases/release-lease';
import { rowLeaseOf } from './row-lease';
import { updateEventRow } from './store/hot-path-writes';
import type { Lease } from './leases/lease-types';
import type { Clock, EventLease, Inbox, InboxEventDocument } from './types';

/** Options for {@link claimEvent}. */
export interface ClaimEventOptions {
  inbox: Inbox;
  /** The event's inbox key, `<provider>:<eventId>`. */
  key: string;
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
 * Claims one attempt at an event: when it is neither processed nor set aside and no other attempt holds a live
 * lease, takes the lease, counts the attempt (`attempts + 1`, `lastAttemptAt`) and mirrors the lease into the event
 * (`leaseOwner`, `leaseUntil`). Exactly one of any number of concurrent claims gets `claimed`.
 *
 * The lease is an inserted document (see {@link acquireLease}), not a `findOneAndUpdate` on the event: on
 * FerretDB 1.24 a conditional update is not atomic. The event is read again after the lease is taken, so an attempt
 * that finished (set `processedAt`) just before is seen as processed, not run again.
 * Writes to the event document happen only under the lease, one writer at a time.
 */
export async function claimEvent(options: ClaimEventOptions): Promise<ClaimResult> {
  const { inbox, key, owner, leaseMs, clock } = options;
  const before = await inbox.events.findOne({ _id: key });
  if (!before) return { status: 'missing' };
  if (before.processedAt) return { status: 'already_processed', event: before };
  if (before.abandonedAt) return { status: 'abandoned', event: before };

  const acquired = await acquireLease({
    leases: inbox.leases,
    key,
    owner,
    leaseMs,
    clock,
    generationHint: before.leaseGeneration ?? 1,
    rowLease: rowLeaseOf(before),
  });
  if (!acquired.acquired) return { status: 'busy', holder: acquired.holder, remainingMs: acquired.remainingMs };
  return claimUnderLease({ ...options, lease: acquired.lease });
}

/**
 * The second half of a claim, once `lease` is held: reads the event again (an attempt that finished just before is
 * seen as processed, not run again), then counts the attempt and mirrors the lease. Releases the lease when the
 * event turns out processed, set aside or gone. Every read and write is by `{ _id }` alone, the one filter
 * FerretDB 1.24 answers from an index; holding the lease makes this replica the row's only writer.
 */
export async function claimUnderLease(options: ClaimEventOptions & { lease: Lease }): Promise<ClaimResult> {
  const { inbox, key, owner, lease, clock } = options;
  const current = await inbox.events.findOne({ _id: key });
  const refusal: ClaimResult | undefined = !current
    ? { status: 'missing' }
    : current.processedAt
      ? { status: 'already_processed', event: current }
      : current.abandonedAt
        ? { status: 'abandoned', event: current }
        : undefined;
  if (refusal) {
    await releaseLease({ leases: inbox.leases, lease, clock });
    return refusal;
  }

  const now = clock();
  const fields = { lastAttemptAt: now, leaseOwner: owner, leaseUntil: lease.until, leaseGeneration: lease.generation };
  // The row just read is current: under the lease nobody else writes it, so the claimed row is computed, not read back.
  const claimed: InboxEventDocument | null = (await updateEventRow(inbox, key, { $inc: { attempts: 1 }, $set: fields }))
    ? { ...current!, ...fields, attempts: current!.attempts + 1 }
    : null;
  if (!claimed) {
    await releaseLease({ leases: inbox.leases, lease, clock });
    return { status: 'missing' };
  }
  options.logger?.debug({ inboxAttempt: claimed.attempts, leaseGeneration: lease.generation }, 'Inbox event claimed');
  return { status: 'claimed', event: claimed, lease, attempt: claimed.attempts };
}
