import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV, type KvEntry } from '@nats-io/kv';
import { BUCKETS, systemClock, type Clock } from '@berth/contract';
import { compareAndSetKv, KvContentionError } from '@berth/messaging';
import type { JobLocation } from '../deduplication-registry';
import { encodeKey } from './kv-key-slots';

/** Options for {@link openKvSingletons}. */
export interface KvSingletonOptions {
  /** Judges leases held by `holder`; the system clock by default. */
  clock?: Clock;
  /** Bucket name; default `berth_job_singletons`. */
  bucket?: string;
  /** How long an `add` may take between claiming a key and storing its job, in ms (default 30 s). */
  claimLeaseMs?: number;
  replicas?: number;
}

/**
 * One key's entry: the job holding it and why it still holds it.
 * - `claimed`: an `add` took the key and is storing the job; held until `leaseUntil`.
 * - `waiting`: the job is stored at `stream`/`seq`; held while that message exists (always while `scheduled`: a
 *   delayed, rate-limited or parked job gets a new message when it comes back).
 * - `running`: a worker runs it; held until `leaseUntil`, which the worker pushes back while the job runs, so a
 *   worker that died frees the key one lease after its last renewal.
 */
export interface SingletonEntry {
  jobId: string;
  state: 'claimed' | 'waiting' | 'running';
  since: string;
  leaseUntil?: number;
  stream?: string;
  seq?: number;
  scheduled?: boolean;
}

/** What a claim or a take found: the key is now this job's, or another job holds it. */
export type SingletonResult = { held: true } | { held: false; jobId: string };

/**
 * Opens (creating it if needed) the KV bucket of singleton keys, `berth_job_singletons` (key
 * `<queue>.<base64url singleton key>`): at most one job per key waits or runs. Every change is a compare-and-set on
 * the entry's revision, so of many concurrent `add`s of one key one stores its job and the others get its id back.
 */
export async function openKvSingletons(
  js: JetStreamClient,
  jsm: JetStreamManager,
  options: KvSingletonOptions = {},
): Promise<Singletons> {
  const kv = await new Kvm(js).create(options.bucket ?? BUCKETS.jobSingletons, {
    history: 1,
    ttl: 15 * 24 * 60 * 60 * 1000,
    replicas: options.replicas ?? 1,
    description: 'Singleton keys of Berth jobs: the one job waiting or running per key (key: <queue>.<base64url key>)',
  });
  return new Singletons(kv, jsm, options.claimLeaseMs ?? 30000, options.clock ?? systemClock);
}

/** See {@link openKvSingletons}. */
export class Singletons {
  constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly claimLeaseMs: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** At `add`: takes the key for a job about to be stored, unless a live job holds it (returned). */
  async claim(queue: string, key: string, jobId: string): Promise<SingletonResult> {
    return this.takeUnlessHeld(queue, key, jobId, (now) => ({
      jobId,
      state: 'claimed',
      since: new Date(now).toISOString(),
      leaseUntil: now + this.claimLeaseMs,
    }));
  }

  /** At `add`, once the job is stored: the key is held while its message exists. */
  async confirm(queue: string, key: string, jobId: string, location: JobLocation): Promise<void> {
    await this.change(queue, key, (entry) =>
      entry?.jobId === jobId && entry.state === 'claimed' ? { ...entry, state: 'waiting', ...location } : undefined,
    );
  }

  /**
   * Before a worker runs the job: marks it running under a lease of `leaseMs`. A job that finds the key held by
   * another live job (one added after this job's worker died and the key's lease ran out) must not run.
   */
  async take(queue: string, key: string, jobId: string, leaseMs: number): Promise<SingletonResult> {
    return this.takeUnlessHeld(queue, key, jobId, (now) => ({
      jobId,
      state: 'running',
      since: new Date(now).toISOString(),
      leaseUntil: now + leaseMs,
    }));
  }

  /** Pushes back the lease of a job still running. */
  async renew(queue: string, key: string, jobId: string, leaseMs: number): Promise<void> {
    await this.change(queue, key, (entry, now) =>
      entry?.jobId === jobId && entry.state === 'running' ? { ...entry, leaseUntil: now + leaseMs } : undefined,
    );
  }

  /**
   * The job waits again at `location` (its message after a failed attempt, or the delayed or parked copy of a job
   * over its rate or concurrency limit): the key stays held while that message exists.
   */
  async waitAt(queue: string, key: string, jobId: string, location: JobLocation): Promise<void> {
    await this.change(queue, key, (entry) =>
      entry?.jobId === jobId
        ? { jobId, state: 'waiting', since: entry.since, ...location, leaseUntil: undefined }
        : undefined,
    );
  }

  /** Frees the key if this job holds it (it completed, failed for good, or was cancelled). */
  async release(queue: string, key: string, jobId: string): Promise<void> {
    await compareAndSetKv<SingletonEntry, void>(
      this.kv,
      entryKey(queue, key),
      ({ value }) => ({ write: value?.jobId === jobId ? { delete: true } : undefined, result: undefined }),
      { decode, rounds: 20 },
    ).catch((error: unknown) => {
      // Twenty writers in a row moved the entry on: it is someone else's now, nothing left to free.
      if (!(error instanceof KvContentionError)) throw error;
    });
  }

  /** The job holding a key now, or undefined when the key is free. */
  async holder(queue: string, key: string): Promise<SingletonEntry | undefined> {
    const current = await this.kv.get(entryKey(queue, key));
    const entry = current && current.operation === 'PUT' ? decode(current) : undefined;
    return entry && (await this.isHeld(entry, this.clock.now().getTime())) ? entry : undefined;
  }

  private async takeUnlessHeld(
    queue: string,
    key: string,
    jobId: string,
    next: (now: number) => SingletonEntry,
  ): Promise<SingletonResult> {
    let result: SingletonResult = { held: true };
    await this.change(queue, key, async (entry, now) => {
      if (entry && entry.jobId !== jobId && (await this.isHeld(entry, now))) {
        result = { held: false, jobId: entry.jobId };
        return undefined;
      }
      result = { held: true };
      return next(now);
    });
    return result;
  }

  /** Whether an entry still holds its key: a lease not run out, or a waiting job whose message still exists. */
  private async isHeld(entry: SingletonEntry, now: number): Promise<boolean> {
    if (entry.state !== 'waiting') return (entry.leaseUntil ?? 0) > now;
    if (entry.scheduled || entry.stream === undefined || entry.seq === undefined) return true;
    return (await this.jsm.streams.getMessage(entry.stream, { seq: entry.seq })) !== null;
  }

  /** Read-modify-write of one entry by compare-and-set, retried on conflict; `update` returns undefined to leave it. */
  private async change(
    queue: string,
    key: string,
    update: (
      entry: SingletonEntry | undefined,
      now: number,
    ) => SingletonEntry | undefined | Promise<SingletonEntry | undefined>,
  ): Promise<void> {
    await compareAndSetKv<SingletonEntry, void>(
      this.kv,
      entryKey(queue, key),
      async ({ value, now }) => {
        const next = await update(value, now);
        return { write: next ? { put: next } : undefined, result: undefined };
      },
      { decode, rounds: 50, clock: this.clock, what: `The singleton key ${key} on ${queue}` },
    );
  }
}

/** The KV key of a singleton key: `<queue>.<base64url key>`. */
function entryKey(queue: string, key: string): string {
  return `${queue}.${encodeKey(key)}`;
}

function decode(entry: KvEntry): SingletonEntry | undefined {
  try {
    const value = entry.json<SingletonEntry>();
    return typeof value?.jobId === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
