import { BUCKETS } from '@berth/contract';
import { ensureKvBucket, ensureStream } from '@berth/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { nanos } from '@nats-io/nats-core';

/** The KV bucket names the cron code uses. */
export interface CronBucketNames {
  /** One entry per registered schedule, keyed by cron name. */
  schedules: string;
  /** The last emitted tick per schedule, keyed by cron name. */
  lastTicks: string;
  /** The scheduler's leader lease, key `leader`. */
  lease: string;
  /** One lock per running cron, keyed by cron name ({@link withCronRunLock}). */
  runLocks: string;
}

/** Berth's bucket names (see `nats kv ls`). */
export const CRON_BUCKET_NAMES: Readonly<CronBucketNames> = Object.freeze({
  schedules: BUCKETS.cronSchedules,
  lastTicks: BUCKETS.cronLastTicks,
  lease: BUCKETS.schedulerLease,
  runLocks: BUCKETS.cronRunLocks,
});

/** The open buckets, with the JetStream client (TTL writes go through it) and their names. */
export interface CronBuckets {
  readonly js: JetStreamClient;
  readonly names: Readonly<CronBucketNames>;
  readonly schedules: KV;
  readonly lastTicks: KV;
  readonly lease: KV;
  readonly runLocks: KV;
}

/** Options for {@link openCronBuckets}. */
export interface CronBucketOptions {
  /** Stream replicas of each bucket (3 on a clustered NATS); 1 by default. */
  replicas?: number;
  /** Other bucket names (tests use their own). */
  names?: Partial<CronBucketNames>;
}

/**
 * How long the server keeps the delete marker it writes when a TTL entry expires (a watcher sees the expiry as a
 * PURGE). The server's minimum is 1 s.
 */
const MARKER_TTL_MS = 1000;

/**
 * Opens (creating when absent) the cron buckets. Safe to call from every service and replica at every start, all at
 * once (`ensureKvBucket`, `ensureStream`). The lease and run-lock buckets are created with per-message TTLs allowed
 * (`allow_msg_ttl`, the KV `markerTTL` option), so an abandoned lease or lock expires on the server's clock; a
 * bucket created without it is updated in place.
 */
export async function openCronBuckets(js: JetStreamClient, options: CronBucketOptions = {}): Promise<CronBuckets> {
  const names = { ...CRON_BUCKET_NAMES, ...options.names };
  const replicas = options.replicas ?? 1;
  const [schedules, lastTicks, lease, runLocks] = await Promise.all([
    ensureKvBucket(js, names.schedules, {
      history: 5,
      replicas,
      description: 'Berth cron schedules, registered by the services that define them',
    }),
    ensureKvBucket(js, names.lastTicks, {
      history: 1,
      replicas,
      description: 'The last tick the scheduler emitted per cron',
    }),
    openTtlBucket(js, names.lease, replicas, 'The scheduler leader lease (key leader)'),
    openTtlBucket(js, names.runLocks, replicas, 'One lock per running cron, so runs of a cron do not overlap'),
  ]);
  return { js, names, schedules, lastTicks, lease, runLocks };
}

async function openTtlBucket(js: JetStreamClient, name: string, replicas: number, description: string): Promise<KV> {
  const kv = await ensureKvBucket(js, name, { history: 1, replicas, markerTTL: MARKER_TTL_MS, description });
  const jsm = await js.jetstreamManager();
  const stream = `KV_${name}`;
  const { config } = await jsm.streams.info(stream);
  if (!config.allow_msg_ttl) {
    await ensureStream(jsm, { ...config, allow_msg_ttl: true, subject_delete_marker_ttl: nanos(MARKER_TTL_MS) });
  }
  return kv;
}
