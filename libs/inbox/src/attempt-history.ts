import type { InboxEventDocument } from './types';

/** How one attempt at an event ended. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'running' | 'superseded' | 'lease ran out';

/** One attempt of an event's current round, as {@link attemptHistory} reads it from the row. */
export interface AttemptRecord {
  /** 1 for the round's first attempt. */
  attempt: number;
  outcome: AttemptOutcome;
  /** Who ran it, where the row says (the success's `processedBy`, a failure's entry, the running lease). */
  owner: string | null;
  /** When it ended (its failure or success was written); null while running or when it never wrote an end. */
  endedAt: Date | null;
  /** A failed attempt's error. */
  error: string | null;
}

type AttemptFields = Pick<
  InboxEventDocument,
  'attempts' | 'processedAt' | 'processedBy' | 'attemptErrors' | 'leaseOwner' | 'leaseUntil' | 'reopenedAt'
>;

/**
 * Every attempt of the event's current round (1 to `attempts`) and how it ended, read from the row alone: the one
 * function the console, the CLI and the API show attempts with.
 * - `succeeded`: the attempt `processedBy` names;
 * - `failed`: an attempt whose failure was recorded (`attemptErrors`), with its error;
 * - `running`: the last attempt while its lease is live;
 * - `superseded`: an attempt that recorded no end and a later attempt followed (its lease ran out while it ran,
 *   its process died, or the store refused its write);
 * - `lease ran out`: the last attempt, which recorded no end and whose lease ran out.
 * Errors of an earlier round (before `reopenedAt`) are not this round's.
 */
export function attemptHistory(row: AttemptFields, now: Date): AttemptRecord[] {
  const since = row.reopenedAt?.getTime() ?? -Infinity;
  const failures = new Map(
    (row.attemptErrors ?? [])
      .filter((failed) => failed.at.getTime() >= since)
      .map((failed) => [failed.attempt, failed]),
  );
  const live = row.leaseUntil !== null && row.leaseUntil.getTime() > now.getTime();
  return Array.from({ length: row.attempts }, (_, index): AttemptRecord => {
    const attempt = index + 1;
    const failed = failures.get(attempt);
    if (row.processedAt && row.processedBy?.attempt === attempt)
      return { attempt, outcome: 'succeeded', owner: row.processedBy.owner, endedAt: row.processedAt, error: null };
    if (failed)
      return { attempt, outcome: 'failed', owner: failed.owner ?? null, endedAt: failed.at, error: failed.error };
    const last = attempt === row.attempts;
    if (last && live && !row.processedAt)
      return { attempt, outcome: 'running', owner: row.leaseOwner, endedAt: null, error: null };
    return { attempt, outcome: last ? 'lease ran out' : 'superseded', owner: null, endedAt: null, error: null };
  });
}
