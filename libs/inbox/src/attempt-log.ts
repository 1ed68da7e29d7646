import { inboxEventKey } from './collections';
import type { Clock } from '@berth/contract';
import type { Inbox, InboxEventDocument } from './types';

/**
 * How one attempt of the event's current round ended, as the console, the CLI (`berth webhooks show`) and the
 * console API tell it:
 * - `succeeded`: the attempt `processedBy` names (or, for an event sent again, one kept in `processedBefore`);
 * - `failed`: its failure was recorded (`attemptErrors`); `error` says how;
 * - `running`: the round's last attempt while its lease holds;
 * - `superseded`: it recorded no end and a later attempt followed (its lease ran out while it ran, its process
 *   died, or the store refused its write);
 * - `lease-ran-out`: the round's last attempt, which recorded no end and whose lease ran out (a crash).
 */
export type AttemptOutcome = 'succeeded' | 'failed' | 'superseded' | 'lease-ran-out' | 'running';

/** One attempt of the event's current round (1 to `attempts`). */
export interface AttemptLogEntry {
  /** The attempt's number in the round, as the handler got it. */
  generation: number;
  kind: 'attempt';
  /** Who ran it, where the row says (the success, a failure's entry, the running lease); `unknown` otherwise. */
  owner: string;
  /** When it was claimed, where the row says (its end's record, or `lastAttemptAt` for the last one). */
  startedAt: Date | null;
  /** When it ended (its failure or success was written); null while running or when it recorded no end. */
  endedAt: Date | null;
  /** Until when its lease holds: for the running attempt only. */
  leaseUntil: Date | null;
  outcome: AttemptOutcome;
  /** A failed attempt's error. */
  error: string | null;
}

/**
 * The attempts of the event's current round and how each ended, read from the row alone (the row is its own lease,
 * and each attempt's end is written with it), after the ends recorded in earlier rounds (before `reopenedAt`: the
 * failures `attemptErrors` kept, the successes of an event sent again), oldest first.
 */
export function webhookAttemptLog(row: InboxEventDocument, now: Date): AttemptLogEntry[] {
  const since = row.reopenedAt?.getTime() ?? -Infinity;
  const failures = new Map(
    (row.attemptErrors ?? [])
      .filter((failed) => failed.at.getTime() >= since)
      .map((failed) => [failed.attempt, failed]),
  );
  const live = row.leaseUntil != null && row.leaseUntil.getTime() > now.getTime();
  const earlierSuccesses = (row.processedBefore ?? []).map((success): AttemptLogEntry => ({
    generation: success.attempt,
    kind: 'attempt',
    owner: success.owner,
    startedAt: success.startedAt ?? null,
    endedAt: success.at,
    leaseUntil: null,
    outcome: 'succeeded',
    error: null,
  }));
  const earlierFailures = (row.attemptErrors ?? [])
    .filter((failed) => failed.at.getTime() < since)
    .map((failed): AttemptLogEntry => ({
      generation: failed.attempt,
      kind: 'attempt',
      owner: failed.owner ?? 'unknown',
      startedAt: failed.startedAt ?? null,
      endedAt: failed.at,
      leaseUntil: null,
      outcome: 'failed',
      error: failed.error,
    }));
  const earlier = [...earlierSuccesses, ...earlierFailures].sort(
    (a, b) => (a.endedAt?.getTime() ?? 0) - (b.endedAt?.getTime() ?? 0),
  );
  const round = Array.from({ length: row.attempts ?? 0 }, (_, index): AttemptLogEntry => {
    const attempt = index + 1;
    const base = { generation: attempt, kind: 'attempt' as const, leaseUntil: null, error: null };
    const failed = failures.get(attempt);
    const last = attempt === row.attempts;
    if (row.processedAt && row.processedBy?.attempt === attempt)
      return {
        ...base,
        owner: row.processedBy.owner,
        startedAt: row.processedBy.startedAt ?? null,
        endedAt: row.processedAt,
        outcome: 'succeeded',
      };
    if (failed)
      return {
        ...base,
        owner: failed.owner ?? 'unknown',
        startedAt: failed.startedAt ?? null,
        endedAt: failed.at,
        outcome: 'failed',
        error: failed.error,
      };
    if (last && live && !row.processedAt)
      return {
        ...base,
        owner: row.leaseOwner ?? 'unknown',
        startedAt: row.lastAttemptAt,
        endedAt: null,
        leaseUntil: row.leaseUntil,
        outcome: 'running',
      };
    return {
      ...base,
      owner: 'unknown',
      startedAt: last ? row.lastAttemptAt : null,
      endedAt: null,
      outcome: last ? 'lease-ran-out' : 'superseded',
    };
  });
  return [...earlier, ...round];
}

/** Reads an event's row by `_id` and answers its attempt log; null for an unknown event. */
export async function readWebhookAttemptLog(options: {
  inbox: Inbox;
  provider: string;
  eventId: string;
  /** What "now" the log's due times are read against. */
  clock: Clock;
}): Promise<{ row: InboxEventDocument; attemptLog: AttemptLogEntry[] } | null> {
  const key = inboxEventKey(options.provider, options.eventId);
  const row: InboxEventDocument | null = await options.inbox.events.findOne({ _id: key });
  if (!row) return null;
  return { row, attemptLog: webhookAttemptLog(row, options.clock.now()) };
}
