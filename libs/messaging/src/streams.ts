import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';

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
    name: 'WEBHOOKS',
    subjects: ['webhooks.>'],
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
    name: 'JOBS',
    subjects: ['jobs.>'],
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
    name: 'JOBS_DELAYED',
    subjects: ['delayed-jobs.>'],
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
    name: 'DEAD_LETTERS',
    subjects: ['dead.>'],
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
 * Creates the stream, or updates it to the spec when it exists with other settings. Safe to call from every
 * replica at every start. Settings JetStream cannot change in place (storage, retention) are reported, not forced.
 */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<'created' | 'updated' | 'unchanged'> {
  const wanted = withDefaults(spec);
  let existing: StreamConfig;
  try {
    existing = (await jsm.streams.info(spec.name)).config;
  } catch (error) {
    if (!isNotFound(error)) throw error;
    try {
      await jsm.streams.add(wanted);
      return 'created';
    } catch (addError) {
      if (!/already in use|already exists/i.test(String(addError))) throw addError;
      existing = (await jsm.streams.info(spec.name)).config;
    }
  }
  const changed = (Object.keys(wanted) as (keyof StreamConfig)[]).filter(
    (key) => key !== 'storage' && key !== 'retention' && JSON.stringify(existing[key]) !== JSON.stringify(wanted[key]),
  );
  if (changed.length === 0) return 'unchanged';
  const { storage: _storage, retention: _retention, ...mutable } = wanted;
  await jsm.streams.update(spec.name, mutable);
  return 'updated';
}

/** True for JetStream's "not found" answers (stream, consumer or message). */
export function isNotFound(error: unknown): boolean {
  return /not found/i.test(String((error as Error)?.message ?? error));
}

/**
 * Creates stream `WEBHOOKS` with Berth's defaults if it does not exist, so a webhook consumer can start before the
 * gateway ever ran (with `sizing.replicas` replicas). An existing stream is left as it is: the gateway owns its sizing.
 */
export async function ensureWebhooksStreamExists(jsm: JetStreamManager, sizing: StreamSizing = {}): Promise<void> {
  try {
    await jsm.streams.info(webhooksStream(sizing).name);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await ensureStream(jsm, webhooksStream(sizing));
  }
}
