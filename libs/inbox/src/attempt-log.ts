import { inboxEventKey } from './collections';
import { leaseDocumentId, type LeaseDocument } from './leases/lease-types';
import { OPERATION_OWNER_PREFIX } from './operation-owner';
import type { Clock, Inbox, InboxAttemptError, InboxEventDocument } from './types';

/**
 * How one lease taken on an event ended, as the console, the CLI (`berth webhooks show`) and the console API tell
 * it. For a consumer's attempt:
 * - `succeeded`: the handler ran and the event was recorded processed under this lease (`processedAt`, or an
 *   earlier processing kept in `processedBefore` when the event was sent again);
 * - `failed`: the handler failed; `error` says how (the inbox's `attemptErrors`);
 * - `skipped`: the claim found the event already processed or set aside and let go without running the handler
 *   (a duplicate delivery);
 * - `superseded`: it never let go, its lease ran out, and a later attempt took the event over (a crash, or a
 *   handler slower than its lease);
 * - `lease-ran-out`: it never let go and its lease ran out, and nothing has taken the event since (a crash);
 * - `running`: its lease still holds.
 * For an inbox operation (recovery, retry, redeliver, resend): `done` once it let go, else as above.
 */
export type AttemptOutcome = 'succeeded' | 'failed' | 'skipped' | 'superseded' | 'lease-ran-out' | 'running' | 'done';

/** One lease of the event: an attempt of a consumer, or an operation (recovery, retry-abandoned, redeliver). */
export interface AttemptLogEntry {
  generation: number;
  kind: 'attempt' | 'operation';
  owner: string;
  startedAt: Date;
  /** When it ended: let go, recorded its success, or was taken over; null while it runs or after it ran out. */
  endedAt: Date | null;
  /** Until when its lease held (or holds). */
  leaseUntil: Date;
  outcome: AttemptOutcome;
  /** The error the inbox recorded for it (`attemptErrors`: the last 33 failed attempts; older rows kept only the last). */
  error: string | null;
}

/**
 * A row as {@link resendProcessedWebhookEvent} leaves it: the times it was processed before it was sent again,
 * oldest first, so the attempts that succeeded then still read so.
 */
export type ResentInboxEventDocument = InboxEventDocument & { processedBefore?: Date[] };

/**
 * The event's attempt log, oldest first, each lease with how it ended: one row per lease document found (`leases`,
 * any order, missing ones null), plus the first attempt when its lease never got a document (rows of versions whose
 * first attempt held its lease in the row, or whose lease documents the retention deleted).
 */
export function webhookAttemptLog(
  row: ResentInboxEventDocument,
  leases: readonly (LeaseDocument | null)[],
  now: Date,
): AttemptLogEntry[] {
  const documents = [...leases, firstAttemptWithoutDocument(row, leases)]
    .filter((lease): lease is LeaseDocument => lease !== null)
    .sort((a, b) => a.generation - b.generation);
  const errors = errorsByLease(documents, row);
  const successes = [...(row.processedBefore ?? []), ...(row.processedAt ? [row.processedAt] : [])];
  return documents.map((lease, index) => {
    const next = documents.slice(index + 1).find((later) => later.generation > lease.generation);
    const kind = lease.owner.startsWith(OPERATION_OWNER_PREFIX) ? ('operation' as const) : ('attempt' as const);
    const error = errors.get(lease.generation) ?? null;
    const base = { generation: lease.generation, kind, owner: lease.owner, startedAt: lease.acquiredAt };
    const entry = (outcome: AttemptOutcome, endedAt: Date | null): AttemptLogEntry => ({
      ...base,
      leaseUntil: lease.until,
      outcome,
      endedAt,
      error,
    });
    if (kind === 'attempt') {
      if (error !== null) return entry('failed', lease.releasedAt);
      // markProcessed leaves the lease to run out: the success is the processing time inside the lease's span.
      const success = successes.find(
        (at) =>
          at.getTime() >= lease.acquiredAt.getTime() &&
          (!next || at.getTime() <= next.acquiredAt.getTime()) &&
          (lease.releasedAt === null || at.getTime() <= lease.releasedAt.getTime()),
      );
      if (success) return entry('succeeded', success);
      if (lease.releasedAt) return entry('skipped', lease.releasedAt);
    } else if (lease.releasedAt) return entry('done', lease.releasedAt);
    if (next) return entry('superseded', next.acquiredAt);
    return lease.until.getTime() > now.getTime() ? entry('running', null) : entry('lease-ran-out', null);
  });
}

/**
 * Reads an event's row and its latest leases (at most `maxLeases`, by `_id`, the one lookup FerretDB 1.24 serves
 * from an index) and answers its attempt log; null for an unknown event.
 */
export async function readWebhookAttemptLog(options: {
  inbox: Inbox;
  provider: string;
  eventId: string;
  clock: Clock;
  maxLeases?: number;
}): Promise<{ row: ResentInboxEventDocument; attemptLog: AttemptLogEntry[] } | null> {
  const key = inboxEventKey(options.provider, options.eventId);
  const row: ResentInboxEventDocument | null = await options.inbox.events.findOne({ _id: key });
  if (!row) return null;
  const lastGeneration = row.leaseGeneration ?? row.attempts;
  const count = Math.min(lastGeneration, options.maxLeases ?? 80);
  const leases = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      options.inbox.leases.findOne({ _id: leaseDocumentId(key, lastGeneration - index) }),
    ),
  );
  return { row, attemptLog: webhookAttemptLog(row, leases, options.clock()) };
}

/**
 * The first attempt's lease as a document, when it has none. The row keeps who and when; it ended with
 * `processedAt` if no later lease was taken, else at its recorded failure.
 */
function firstAttemptWithoutDocument(
  row: InboxEventDocument,
  leases: readonly (LeaseDocument | null)[],
): LeaseDocument | null {
  if (!row.firstAttempt || leases.some((lease) => lease?.generation === 1)) return null;
  const failed = row.attemptErrors?.find((attempt) => attempt.attempt === 1);
  const endedAt = (row.leaseGeneration ?? 1) === 1 && row.processedAt ? row.processedAt : (failed?.at ?? null);
  return {
    _id: leaseDocumentId(row._id, 1),
    key: row._id,
    generation: 1,
    owner: row.firstAttempt.owner,
    acquiredAt: row.firstAttempt.at,
    until: row.leaseUntil ?? row.firstAttempt.at,
    releasedAt: endedAt,
  };
}

/**
 * The error recorded under each attempt lease, by generation: a failure is written under its attempt's lease, after
 * the lease was taken and before it was released. Rows written before `attemptErrors` was kept have only
 * `lastError`, given to the latest attempt of an unprocessed event.
 */
function errorsByLease(documents: readonly LeaseDocument[], row: InboxEventDocument): Map<number, string> {
  const attempts = documents.filter((lease) => !lease.owner.startsWith(OPERATION_OWNER_PREFIX));
  const errors = new Map<number, string>();
  const attemptErrors: readonly InboxAttemptError[] = row.attemptErrors ?? [];
  for (const failed of attemptErrors) {
    const at = failed.at.getTime();
    const held = attempts.find(
      (lease) => lease.acquiredAt.getTime() <= at && (lease.releasedAt === null || lease.releasedAt.getTime() >= at),
    );
    if (held) errors.set(held.generation, failed.error);
  }
  const latest = attempts.at(-1);
  if (attemptErrors.length === 0 && latest && row.lastError && !row.processedAt)
    errors.set(latest.generation, row.lastError);
  return errors;
}
