import { JOB_HEADERS } from '@berth/contract';
import { UnrecoverableError } from '@berth/messaging';

/**
 * One job as it travels in a JetStream message body. A message carries one job, or several of one queue and name
 * when they were queued together (see the producer's `GroupCommitQueue`); the body is always a JSON array of records.
 */
export interface JobRecord {
  /** Unique per job (a UUID); names the job in logs, dead letters and deduplication entries. */
  id: string;
  /** What the job was queued with; passed to its `@Process` method. */
  data: unknown;
  /** Retries after the first attempt (attempts in all = retryLimit + 1). */
  retryLimit: number;
  /** Attempts made before this message (a job moved out of a batch to be retried carries its count here). */
  attemptsMade: number;
  /** When `add` was called (ISO 8601). */
  addedAt: string;
  /** The `deduplicationId` it was queued with, if any. */
  deduplicationId?: string;
  /** The job id this one replays from the dead letters, if any. */
  replayOf?: string;
  /** The deadline of each attempt given to `add`, in ms, if any. */
  timeoutMs?: number;
  /** The per-key concurrency given to `add`, if any. */
  concurrency?: { key: string; limit: number };
  /** The per-key rate limit given to `add`, if any. */
  rateLimit?: { key: string; limit: number; perMs: number };
  /** The debounce key given to `add`, if any: the job runs only if no later job of the key was added. */
  debounceKey?: string;
  /** The singleton key given to `add`, if any: the job runs only while it holds the key. */
  singletonKey?: string;
  /** The priority given to `add`, if any (1 most urgent … 10); none ranks before every priority. */
  priority?: number;
  /** The fair-queueing key given to `add`, if any, and its weight. */
  fairKey?: string;
  fairWeight?: number;
}

/** The JSON body of a message carrying these jobs. */
export function encodeJobRecords(records: readonly JobRecord[]): string {
  return JSON.stringify(records);
}

/** The JSON text of one record, to assemble bodies without encoding twice. */
export function encodeJobRecord(record: JobRecord): string {
  return JSON.stringify(record);
}

/** A body made of records already encoded with {@link encodeJobRecord}. */
export function joinEncodedRecords(encoded: readonly string[]): string {
  return `[${encoded.join(',')}]`;
}

/** The header Berth's producer sets on every job message it writes: how many records the body holds. */
export const JOB_COUNT_HEADER = JOB_HEADERS.jobCount;

/** Headers a plain job message may carry (set by other publishers, e.g. the scheduler or `nats pub`). */
export const PLAIN_JOB_HEADERS = { jobId: JOB_HEADERS.jobId, retryLimit: JOB_HEADERS.retryLimit } as const;

/** What {@link decodeJobMessage} needs to know about the message besides its body. */
export interface JobMessageFacts {
  headers?: { has(key: string): boolean; get(key: string): string };
  msgId?: string;
  stream: string;
  streamSequence: number;
  storedAt: Date;
  /** The queue's default retry limit, for a plain message that names none. */
  defaultRetryLimit: number;
}

/**
 * Reads a job message in either form:
 * - written by `add` (header `Berth-Job-Count`): a JSON array of {@link JobRecord};
 * - plain (anything else published on `jobs.<queue>.<name>`, e.g. a cron tick of the scheduler, or
 *   `nats pub jobs.client-queue.SendClientSummaryJob '{"workspaceId":"w1"}'`): the body is the job's data, the job
 *   id is `Berth-Job-Id` or else the `Nats-Msg-Id` or else `<stream>-<sequence>`, the retry limit
 *   `Berth-Retry-Limit` or else the queue's.
 * Throws `UnrecoverableError` when the body can't be read (retrying can't help).
 */
export function decodeJobMessage(body: string, facts: JobMessageFacts): JobRecord[] {
  if (facts.headers?.has(JOB_COUNT_HEADER)) return decodeJobRecords(body);
  let data: unknown = null;
  if (body.trim() !== '') {
    try {
      data = JSON.parse(body);
    } catch (error) {
      throw new UnrecoverableError('Job message body is not JSON', { cause: error });
    }
  }
  const retryHeader = facts.headers?.has(PLAIN_JOB_HEADERS.retryLimit)
    ? Number(facts.headers.get(PLAIN_JOB_HEADERS.retryLimit))
    : NaN;
  return [
    {
      id:
        (facts.headers?.has(PLAIN_JOB_HEADERS.jobId) ? facts.headers.get(PLAIN_JOB_HEADERS.jobId) : '') ||
        facts.msgId ||
        `${facts.stream}-${facts.streamSequence}`,
      data,
      retryLimit: Number.isInteger(retryHeader) && retryHeader >= 0 ? retryHeader : facts.defaultRetryLimit,
      attemptsMade: 0,
      addedAt: facts.storedAt.toISOString(),
    },
  ];
}

/** Parses a message body into job records; throws `UnrecoverableError` when it is not one (retrying can't help). */
export function decodeJobRecords(body: string): JobRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new UnrecoverableError('Job message body is not JSON', { cause: error });
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every(isJobRecord)) {
    throw new UnrecoverableError('Job message body is not a list of job records');
  }
  return parsed;
}

function isJobRecord(value: unknown): value is JobRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<JobRecord>;
  return (
    typeof record.id === 'string' &&
    record.id.length > 0 &&
    'data' in record &&
    Number.isInteger(record.retryLimit) &&
    (record.retryLimit as number) >= 0 &&
    Number.isInteger(record.attemptsMade) &&
    (record.attemptsMade as number) >= 0 &&
    typeof record.addedAt === 'string'
  );
}
