/** Why a job was set aside. */
export type DeadLetterReason =
  /** The handler threw `UnrecoverableError`: retrying can't help. */
  | 'unrecoverable'
  /** Every attempt failed. */
  | 'exhausted'
  /** The message could not be read as a job, or no worker knows the job's name. */
  | 'invalid'
  /** A worker died (crashed, was killed, stalled past the lease) `poisonLimit` times while running it. */
  | 'poison';

/** A job that failed for good, as stored on `dead.jobs.<queue>.<name>` in the `DEAD_LETTERS` stream. */
export interface DeadLetter {
  jobId: string;
  queue: string;
  name: string;
  /** The data the job was queued with (for an unreadable message: its raw body as text). */
  data: unknown;
  reason: DeadLetterReason;
  /** The last error. */
  error: { name: string; message: string; stack?: string };
  /** Attempts made, the failed one included. */
  attempts: number;
  retryLimit: number;
  deduplicationId?: string;
  /** When the job was first queued (ISO 8601). */
  addedAt?: string;
  /** When it was set aside (ISO 8601). */
  failedAt: string;
  /** Where the job was: `jobs.<queue>.<name>` and its sequence in the `JOBS` stream. */
  originalSubject: string;
  originalStreamSequence: number;
  /** Its `Nats-Msg-Id` (the job id, or the batch id when it travelled with others). */
  originalMessageId?: string;
  /** The job id this one replayed, if it was itself a replay. */
  replayOf?: string;
  /** The message could not be read as jobs at all (its raw body is in `data`): it can't be replayed. */
  unreadable?: boolean;
}

/** A dead letter read back from the stream, with its sequence there (the id `berth jobs dead replay` takes). */
export interface StoredDeadLetter extends DeadLetter {
  /** Sequence in `DEAD_LETTERS`. */
  id: number;
  /** When the stream stored it. */
  storedAt: Date;
}

/** The error fields a dead letter keeps, from any thrown value. */
export function describeJobError(error: unknown): DeadLetter['error'] {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}
