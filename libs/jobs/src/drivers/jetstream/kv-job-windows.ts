import { BUCKETS, systemClock, type Clock } from '@berth/contract';
import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { compareAndSetKv } from '@berth/messaging';
import { encodeKey } from './kv-key-slots';

/** Options for {@link openKvJobWindows}. */
export interface KvJobWindowOptions {
  /** Bucket name; default `berth_job_windows`. */
  bucket?: string;
  replicas?: number;
  /** Times throttle windows; the system clock by default. */
  clock?: Clock;
}

/**
 * Throttle and debounce windows, in the KV bucket `berth_job_windows`, changed by compare-and-set so they hold across
 * every producer and worker:
 * - throttle (`t.<queue>.<base64url key>`): the job that opened the current window and when; an `add` inside the
 *   window is dropped, the first after it opens the next window;
 * - debounce (`d.<queue>.<base64url key>`): the latest job added; a debounced job that comes due and is not the
 *   latest was superseded and is dropped.
 */
export async function openKvJobWindows(js: JetStreamClient, options: KvJobWindowOptions = {}): Promise<JobWindows> {
  const kv = await new Kvm(js).create(options.bucket ?? BUCKETS.jobWindows, {
    history: 1,
    ttl: 15 * 24 * 60 * 60 * 1000,
    replicas: options.replicas ?? 1,
    description: 'Throttle and debounce windows of Berth jobs',
  });
  return new JobWindows(kv, options.clock ?? systemClock);
}

/** See {@link openKvJobWindows}. */
export class JobWindows {
  /** The bucket, also holding the fair feeders' leases (`f.<queue>`). */
  constructor(
    readonly kv: KV,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Opens a throttle window for this job, or returns the job holding the open one. */
  async throttle(
    queue: string,
    key: string,
    ms: number,
    jobId: string,
  ): Promise<{ admitted: true } | { admitted: false; jobId: string }> {
    type Window = { jobId: string; openedAt: number };
    return compareAndSetKv<Window, { admitted: true } | { admitted: false; jobId: string }>(
      this.kv,
      `t.${queue}.${encodeKey(key)}`,
      ({ value: window, now: at }) =>
        window && at - window.openedAt < ms
          ? { result: { admitted: false, jobId: window.jobId } }
          : { write: { put: { jobId, openedAt: at } }, result: { admitted: true } },
      {
        decode: (entry) => entry.json<Window>(),
        clock: this.clock,
        what: `The throttle window of ${key} on ${queue}`,
      },
    );
  }

  /** Records this job as the latest of its debounce key. */
  async debounce(queue: string, key: string, jobId: string): Promise<void> {
    await this.kv.put(`d.${queue}.${encodeKey(key)}`, jobId);
  }

  /** True when this job is still the latest of its debounce key (or nothing is recorded: it runs). */
  async isLatest(queue: string, key: string, jobId: string): Promise<boolean> {
    const entry = await this.kv.get(`d.${queue}.${encodeKey(key)}`);
    return !entry || entry.operation !== 'PUT' || entry.string() === jobId;
  }

  /** Clears the key once its latest job ran, unless a newer one came meanwhile. */
  async settleDebounce(queue: string, key: string, jobId: string): Promise<void> {
    const kvKey = `d.${queue}.${encodeKey(key)}`;
    const entry = await this.kv.get(kvKey);
    if (!entry || entry.operation !== 'PUT' || entry.string() !== jobId) return;
    await this.kv.delete(kvKey, { previousSeq: entry.revision }).catch(() => undefined);
  }
}
