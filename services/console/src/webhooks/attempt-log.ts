import { leaseDocumentId, type InboxAttemptError, type InboxEventDocument, type LeaseDocument } from '@berth/inbox';

/** One lease of the event: an attempt of a consumer, or an operation (recovery, retry-abandoned, redeliver). */
export interface AttemptRow {
  generation: number;
  kind: 'attempt' | 'operation';
  owner: string;
  startedAt: Date;
  /** When it let go (null: it ran until its lease ran out, e.g. a crash). */
  endedAt: Date | null;
  /** The error the inbox recorded for it (`attemptErrors`: the last 33 failed attempts; older rows kept only the last). */
  error: string | null;
}

/** Owners of the inbox operations' short leases (recovery, retry-abandoned, redeliver) all start so (`inbox-op:`). */
const OPERATION_OWNER = /^inbox-op:/;

/**
 * The event's attempt log, oldest first: one row per lease it found (`leases`, any order, missing ones null), plus
 * the first attempt when its lease never got a document; each attempt with the error recorded while it was held.
 */
export function attemptLogOf(row: InboxEventDocument, leases: readonly (LeaseDocument | null)[]): AttemptRow[] {
  const attemptLog = [...leases, firstAttemptWithoutDocument(row, leases)]
    .filter((lease): lease is LeaseDocument => lease !== null)
    .map((lease) => ({
      generation: lease.generation,
      kind: OPERATION_OWNER.test(lease.owner) ? ('operation' as const) : ('attempt' as const),
      owner: lease.owner,
      startedAt: lease.acquiredAt,
      endedAt: lease.releasedAt,
      error: null as string | null,
    }))
    .sort((a, b) => a.generation - b.generation);
  const attemptErrors = row.attemptErrors ?? [];
  matchAttemptErrors(attemptLog, attemptErrors);
  const lastFailed = [...attemptLog].reverse().find((attempt) => attempt.kind === 'attempt');
  if (attemptErrors.length === 0 && lastFailed && row.lastError && !row.processedAt) lastFailed.error = row.lastError;
  return attemptLog;
}

/**
 * The first attempt's lease as a document, when it has none: on rows of Berth versions whose first attempt held its
 * lease in the row it inserted (a document only if it renewed), and on rows whose lease documents the retention
 * deleted. The row keeps who and when; it ended with `processedAt` if no later lease was taken, else at its recorded
 * failure.
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
 * Gives each attempt lease the error recorded while it was held: a failure is written under its attempt's lease,
 * after the lease was taken and before it was released.
 */
function matchAttemptErrors(attemptLog: AttemptRow[], attemptErrors: readonly InboxAttemptError[]): void {
  for (const failed of attemptErrors) {
    const at = failed.at.getTime();
    const held = attemptLog.find(
      (attempt) =>
        attempt.kind === 'attempt' &&
        attempt.startedAt.getTime() <= at &&
        (attempt.endedAt === null || attempt.endedAt.getTime() >= at),
    );
    if (held) held.error = failed.error;
  }
}
