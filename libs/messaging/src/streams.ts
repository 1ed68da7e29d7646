import {
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { STREAMS, STREAM_SUBJECTS } from '@berth/contract';

/** What Berth asks of a stream; names, subjects and limits, the rest is filled with Berth's defaults. */
export type StreamSpec = Pick<StreamConfig, 'name' | 'subjects'> & Partial<StreamConfig>;

const DAY_MS = 24 * 60 * 60 * 1000;
const GIB = 1024 ** 3;

/**
 * Default `max_bytes` of the streams that have one. JetStream *reserves* a file stream's `max_bytes` on the server
 * when the stream is created, and refuses any new stream ("insufficient storage resources available") once the
 * reservations reach the server's `max_file_store`. Every Berth stream lives on one JetStream (one node, or each node
 * of an R3 cluster), so these add up: 8 + 6 + 1 = 15 GiB, under the 18 GiB `maxSize` of deploy/nats/values.yaml and
 * the 20 GB of docker-compose.yml and the local servers, which leaves room for `JOBS_DELAYED` and the KV buckets
 * (no reservation). Raise them only with the store. (At 10 + 10 + 1 the third stream could not be created.)
 */
export const DEFAULT_STREAM_MAX_BYTES = Object.freeze({ WEBHOOKS: 8 * GIB, JOBS: 6 * GIB, DEAD_LETTERS: 1 * GIB });

/** Sizing knobs for the streams, from a service's configuration. */
export interface StreamSizing {
  replicas?: number;
  /** Bytes a stream may hold before it refuses new messages. */
  maxBytes?: number;
}

/**
 * `WEBHOOKS`: every verified inbound event, on `webhooks.<provider>.<type>`.
 * - Limits retention, kept 7 days: longer than Stripe's 3-day retry horizon, so a consumer outage of days loses
 *   nothing; after that the inbox row is what the recovery cron relies on.
 * - `discard: new`: a full stream refuses a publish (the gateway answers 503 and the provider retries) instead of
 *   dropping an unprocessed message to make room.
 * - Duplicate window 24 h: a provider's retries inside it are dropped by JetStream (`Nats-Msg-Id`); later ones
 *   reach the consumer, whose inbox `processedAt` check skips them.
 */
export function webhooksStream(sizing: StreamSizing = {}): StreamSpec {
  return {
    name: STREAMS.webhooks,
    subjects: [...STREAM_SUBJECTS.webhooks],
    retention: RetentionPolicy.Limits,
    max_age: nanos(7 * DAY_MS),
    duplicate_window: nanos(DAY_MS),
    max_bytes: sizing.maxBytes ?? DEFAULT_STREAM_MAX_BYTES.WEBHOOKS,
    num_replicas: sizing.replicas ?? 1,
  };
}

/** `JOBS`: background and cron jobs on `jobs.<queue>.<name>`; work-queue retention removes a job once acked. */
export function jobsStream(sizing: StreamSizing = {}): StreamSpec {
  return {
    name: STREAMS.jobs,
    subjects: [...STREAM_SUBJECTS.jobs],
    retention: RetentionPolicy.Workqueue,
    max_age: nanos(14 * DAY_MS),
    duplicate_window: nanos(10 * 60 * 1000),
    max_bytes: sizing.maxBytes ?? DEFAULT_STREAM_MAX_BYTES.JOBS,
    num_replicas: sizing.replicas ?? 1,
  };
}

/**
 * `JOBS_DELAYED`: jobs that must not run yet, on `delayed-jobs.>`. A delayed job waits as a one-shot message
 * schedule (nats-server 2.12+) on `delayed-jobs.at.<queue>.<jobId>`, which no consumer reads; when it is due the
 * server publishes it to `delayed-jobs.due.<queue>.<name>` and removes the schedule, and the queue's workers take
 * it from there (work-queue retention: gone once acked).
 * - Its own stream because JetStream refuses message schedules with `discard: new`. It has no size or age limit,
 *   so `discard: old` never drops anything: when the server's storage is full a publish is refused, as with
 *   `discard: new`; and a job may wait as long as it must.
 */
export function delayedJobsStream(sizing: StreamSizing = {}): StreamSpec {
  return {
    name: STREAMS.delayedJobs,
    subjects: [...STREAM_SUBJECTS.delayedJobs],
    retention: RetentionPolicy.Workqueue,
    discard: DiscardPolicy.Old,
    allow_msg_schedules: true,
    duplicate_window: nanos(10 * 60 * 1000),
    num_replicas: sizing.replicas ?? 1,
  };
}

/**
 * `DEAD_LETTERS`: a copy of every message that can never succeed, with its error, on `dead.<origin subject>`,
 * kept 30 days for listing and replay.
 */
export function deadLettersStream(sizing: StreamSizing = {}): StreamSpec {
  return {
    name: STREAMS.deadLetters,
    subjects: [...STREAM_SUBJECTS.deadLetters],
    retention: RetentionPolicy.Limits,
    max_age: nanos(30 * DAY_MS),
    duplicate_window: nanos(60 * 60 * 1000),
    max_bytes: sizing.maxBytes ?? DEFAULT_STREAM_MAX_BYTES.DEAD_LETTERS,
    num_replicas: sizing.replicas ?? 1,
  };
}

/** The fields Berth always sets, whatever the spec: file storage and refusing new messages when full. */
function withDefaults(spec: StreamSpec): Partial<StreamConfig> & Pick<StreamConfig, 'name'> {
  return { storage: StorageType.File, discard: DiscardPolicy.New, retention: RetentionPolicy.Limits, ...spec };
}

/**
 * JetStream API error codes that provisioning must tell apart and that @nats-io/jetstream does not name (its
 * `JetStreamApiCodes` has `StreamNotFound`, `ConsumerNotFound`, `NoMessageFound`…). From nats-server's errors.json.
 */
export const PROVISIONING_ERROR_CODES = Object.freeze({
  /**
   * `insufficient storage resources available`: the server could not reserve the stream's `max_bytes`. Also
   * answered, transiently, to one of several creators racing to create streams at once: the reservations of
   * creations still in flight count against the store.
   */
  InsufficientResources: 10047,
  /** `stream name already in use with a different configuration`: another creator won with other settings. */
  StreamNameInUse: 10058,
});

/** Options for {@link ensureStream}. */
export interface EnsureStreamOptions {
  /** Tries before a refusal is final; 8 by default (about 4 s of backoff in all). */
  attempts?: number;
  /** Waits between tries; `setTimeout` by default (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
  /** What to do with a stream that exists with other settings: bring it to the spec (default) or leave it. */
  existing?: 'update' | 'keep';
}

const sleepFor = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** The JetStream API error code of `error`, or undefined when it is no JetStream API answer. */
export function jetStreamErrorCode(error: unknown): number | undefined {
  return error instanceof JetStreamApiError ? error.code : undefined;
}

/** True when another provisioner racing this one may be the cause of the refusal, so reading again can resolve it. */
function isProvisioningRace(error: unknown): boolean {
  const code = jetStreamErrorCode(error);
  return code === PROVISIONING_ERROR_CODES.InsufficientResources || code === PROVISIONING_ERROR_CODES.StreamNameInUse;
}

/**
 * Runs one provisioning step (read, then create or update) again, with jittered exponential backoff, while it is
 * refused in a way another provisioner racing it can cause; throws any other error, or the last refusal.
 */
export async function retryProvisioningRace<T>(
  step: () => Promise<T>,
  options: Pick<EnsureStreamOptions, 'attempts' | 'sleep'> = {},
): Promise<T> {
  const attempts = options.attempts ?? 8;
  const sleep = options.sleep ?? sleepFor;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (!isProvisioningRace(error) || attempt >= attempts) throw error;
      await sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random()));
    }
  }
}

/**
 * Creates the stream, or updates it to the spec when it exists with other settings. Safe to call from every
 * service and replica at every start, all at once: when a create is refused for any reason it reads the stream
 * again and goes on from a stream another provisioner created meanwhile (accepting equal settings, updating
 * others); a refusal that racing provisioners cause (a reservation refused while others' creations are in flight,
 * a name taken a moment ago with other settings) is tried again with backoff. Settings JetStream cannot change in
 * place (storage, retention) are reported, not forced. A refusal that persists is thrown as it came.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  spec: StreamSpec,
  options: EnsureStreamOptions = {},
): Promise<'created' | 'updated' | 'unchanged'> {
  const wanted = withDefaults(spec);
  return retryProvisioningRace(() => provisionOnce(jsm, wanted, options.existing ?? 'update'), options);
}

type WantedStream = Partial<StreamConfig> & Pick<StreamConfig, 'name'>;

async function provisionOnce(
  jsm: JetStreamManager,
  wanted: WantedStream,
  onExisting: 'update' | 'keep',
): Promise<'created' | 'updated' | 'unchanged'> {
  let existing = await readConfig(jsm, wanted.name);
  if (!existing) {
    try {
      await jsm.streams.add(wanted);
      return 'created';
    } catch (addError) {
      // Whatever the refusal, a stream that exists now was made by another provisioner: go on from it.
      existing = await readConfig(jsm, wanted.name);
      if (!existing) throw addError;
    }
  }
  return onExisting === 'keep' ? 'unchanged' : updateToSpec(jsm, existing, wanted);
}

async function readConfig(jsm: JetStreamManager, name: string): Promise<StreamConfig | undefined> {
  try {
    return (await jsm.streams.info(name)).config;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function updateToSpec(
  jsm: JetStreamManager,
  existing: StreamConfig,
  wanted: WantedStream,
): Promise<'updated' | 'unchanged'> {
  const changed = (Object.keys(wanted) as (keyof StreamConfig)[]).filter(
    (key) => key !== 'storage' && key !== 'retention' && JSON.stringify(existing[key]) !== JSON.stringify(wanted[key]),
  );
  if (changed.length === 0) return 'unchanged';
  const { storage: _storage, retention: _retention, ...mutable } = wanted;
  await jsm.streams.update(wanted.name, mutable);
  return 'updated';
}

const NOT_FOUND_CODES: ReadonlySet<number> = new Set([
  JetStreamApiCodes.StreamNotFound,
  JetStreamApiCodes.ConsumerNotFound,
  JetStreamApiCodes.NoMessageFound,
]);

/** True for JetStream's "not found" answers (stream, consumer or message), by their API error code. */
export function isNotFound(error: unknown): boolean {
  const code = jetStreamErrorCode(error);
  return code !== undefined && NOT_FOUND_CODES.has(code);
}

const WRONG_LAST_SEQUENCE_CODES: ReadonlySet<number> = new Set([
  JetStreamApiCodes.StreamWrongLastSequence,
  JetStreamApiCodes.StreamWrongLastSequenceUnknown,
]);

/**
 * True when a compare-and-set write failed (`Nats-Expected-Last-Subject-Sequence` did not match: a KV `create` of a
 * key that exists, an `update` or a `delete` with a revision the key moved on from), by its API error code, as the
 * KV client itself tells them apart.
 */
export function isWrongLastSequence(error: unknown): boolean {
  const code = jetStreamErrorCode(error);
  return code !== undefined && WRONG_LAST_SEQUENCE_CODES.has(code);
}

/**
 * Creates stream `WEBHOOKS` with Berth's defaults if it does not exist, so a webhook consumer can start before the
 * gateway ever ran (with `sizing.replicas` replicas). An existing stream is left as it is: the gateway owns its sizing.
 */
export async function ensureWebhooksStreamExists(
  jsm: JetStreamManager,
  sizing: StreamSizing = {},
  options: Omit<EnsureStreamOptions, 'existing'> = {},
): Promise<void> {
  await ensureStream(jsm, webhooksStream(sizing), { ...options, existing: 'keep' });
}
