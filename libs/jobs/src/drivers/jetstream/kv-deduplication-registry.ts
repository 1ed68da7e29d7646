import { BUCKETS, clockDelay, systemClock, type Clock } from '@berth/contract';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';
import { compareAndSetKv, ensureKvBucket } from '@berth/messaging';
import { JOBS_STREAM_NAME } from '../../names';
import type { ClaimResult, DeduplicationClaim, DeduplicationRegistry, JobLocation } from '../deduplication-registry';

/** Options for {@link openKvDeduplicationRegistry}. */
export interface KvDeduplicationOptions {
  /** Stamps `claimedAt`; the system clock by default. */
  clock?: Clock;
  /** Bucket name; default `berth_job_dedup`. */
  bucket?: string;
  /**
   * How long a claim lives before its job is confirmed stored, in ms (default 30 s). If the process that claimed
   * dies before publishing, the entry expires after this and the id is free again.
   */
  claimTtlMs?: number;
  /** Age after which any entry is dropped whatever happened (default 15 days, past the JOBS stream's 14). */
  maxAgeMs?: number;
  replicas?: number;
}

/** One entry of the bucket, JSON. */
interface DeduplicationEntry {
  jobId: string;
  claimedAt: string;
  /** Set once the job is stored: where its message is. */
  stream?: string;
  seq?: number;
  scheduled?: boolean;
}

/**
 * Opens (creating it if needed) the KV bucket of in-flight deduplication ids: key `<queue>.<base64url(id)>`.
 *
 * - `claim` is an atomic create: of 50 concurrent `add`s with one id, one creates the key, the others wait for its
 *   job to be stored and return its job id. The claim carries a per-key TTL (`claimTtlMs`) until `confirm` records
 *   the job's stream sequence, so a producer that dies between claiming and publishing blocks the id only that
 *   long; an `add` is never told "deduplicated" by a claim whose job may never be stored (a store that failed
 *   while the claim could not be freed, a frozen node, say). The price: an `add` whose job was stored but whose
 *   confirm failed leaves the id to be taken again once the claim's TTL has run out.
 * - The worker releases the key (compare-and-delete on the job id) when the job completes or is dead-lettered,
 *   before it acks the message, so a crash leaves the key to a job that will run again and release it.
 * - Belt and braces: a confirmed entry whose message is gone from `JOBS` (acked while the release failed, purged
 *   by an operator) is stale, and the next `claim` replaces it. A delayed job's entry stays live from its schedule
 *   until a worker takes the job and records its new message.
 */
export async function openKvDeduplicationRegistry(
  js: JetStreamClient,
  jsm: JetStreamManager,
  options: KvDeduplicationOptions = {},
): Promise<DeduplicationRegistry> {
  const claimTtlMs = options.claimTtlMs ?? 30000;
  const kv = await ensureKvBucket(js, options.bucket ?? BUCKETS.jobDedup, {
    history: 1,
    ttl: options.maxAgeMs ?? 15 * 24 * 60 * 60 * 1000,
    markerTTL: 60 * 1000,
    replicas: options.replicas ?? 1,
    description: 'In-flight deduplicationIds of Berth jobs (key: <queue>.<base64url id>)',
  });
  return new KvDeduplicationRegistry(kv, jsm, claimTtlMs, options.clock ?? systemClock);
}

class KvDeduplicationRegistry implements DeduplicationRegistry {
  constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly claimTtlMs: number,
    private readonly clock: Clock,
  ) {}

  /**
   * Takes the id for `jobId` by compare-and-set, first as a create (the id is usually new: one round trip), with a
   * TTL so a claim whose `add` never confirmed it expires. A stale confirmed entry (its job message is gone) is
   * deleted at the revision read and the id taken on a fresh read. An id is answered as taken only once its job is
   * known stored: a claim not yet confirmed is waited for (its `add` is storing the job, or failed to and could not
   * free it), until it is confirmed, freed, or past its TTL, when it is taken over.
   */
  async claim(queue: string, deduplicationId: string, jobId: string): Promise<ClaimResult> {
    for (let wait = 0; ; wait++) {
      const outcome = await this.claimOnce(queue, deduplicationId, jobId);
      if (outcome !== 'unconfirmed') return outcome;
      await clockDelay(this.clock, Math.min(500, 25 * 2 ** wait));
    }
  }

  private claimOnce(queue: string, deduplicationId: string, jobId: string): Promise<ClaimResult | 'unconfirmed'> {
    const key = entryKey(queue, deduplicationId);
    const claimed: DeduplicationEntry = { jobId, claimedAt: this.clock.now().toISOString() };
    const ttl = `${Math.max(1, Math.ceil(this.claimTtlMs / 1000))}s`;
    return compareAndSetKv<DeduplicationEntry, ClaimResult | 'unconfirmed'>(
      this.kv,
      key,
      async ({ value: current, entry, now }) => {
        // An entry this registry cannot read: wait for it to be replaced (or expire) rather than write over it.
        if (!current && entry?.operation === 'PUT') return { reread: true };
        if (current && current.seq === undefined) {
          const expired = now > Date.parse(current.claimedAt) + this.claimTtlMs;
          return expired ? { write: { delete: true }, reread: true } : { result: 'unconfirmed' };
        }
        if (current && !(await this.isStale(current)))
          return { result: { claimed: false, existingJobId: current.jobId } };
        if (current) return { write: { delete: true }, reread: true };
        return {
          write: { put: claimed, ttl },
          resultOf: (revision) => ({ claimed: true, claim: { queue, deduplicationId, jobId, revision } }),
        };
      },
      {
        decode,
        encode,
        rounds: 5,
        clock: this.clock,
        known: { value: undefined, revision: 0 },
        what: `The deduplicationId ${JSON.stringify(deduplicationId)} on ${queue}`,
      },
    );
  }

  async confirm(claim: DeduplicationClaim, location: JobLocation): Promise<void> {
    const key = entryKey(claim.queue, claim.deduplicationId);
    const value = encode({ jobId: claim.jobId, claimedAt: this.clock.now().toISOString(), ...location });
    await this.kv.update(key, value, claim.revision);
  }

  async abandon(claim: DeduplicationClaim): Promise<void> {
    await this.kv.delete(entryKey(claim.queue, claim.deduplicationId), { previousSeq: claim.revision });
  }

  async relocate(queue: string, deduplicationId: string, jobId: string, location: JobLocation): Promise<void> {
    const key = entryKey(queue, deduplicationId);
    const entry = await this.kv.get(key);
    const current = entry && entry.operation === 'PUT' ? decode(entry) : undefined;
    if (!entry || current?.jobId !== jobId) return;
    if (
      current.stream === location.stream &&
      current.seq === location.seq &&
      !!current.scheduled === location.scheduled
    )
      return;
    await this.kv.update(key, encode({ ...current, ...location }), entry.revision);
  }

  async release(queue: string, deduplicationId: string, jobId: string): Promise<void> {
    await compareAndSetKv<DeduplicationEntry, void>(
      this.kv,
      entryKey(queue, deduplicationId),
      ({ value }) => ({ write: value?.jobId === jobId ? { delete: true } : undefined, result: undefined }),
      { decode },
    );
  }

  /** A confirmed entry whose job message is gone from JOBS. Unconfirmed claims expire by TTL instead. */
  private async isStale(entry: DeduplicationEntry): Promise<boolean> {
    if (entry.seq === undefined || entry.scheduled) return false;
    const message = await this.jsm.streams.getMessage(entry.stream ?? JOBS_STREAM_NAME, { seq: entry.seq });
    return message === null;
  }
}

/** The KV key of a deduplication id: `<queue>.<base64url(id)>` (KV keys allow only a few characters). */
export function entryKey(queue: string, deduplicationId: string): string {
  return `${queue}.${Buffer.from(deduplicationId, 'utf8').toString('base64url')}`;
}

function encode(entry: DeduplicationEntry): string {
  return JSON.stringify(entry);
}

function decode(entry: KvEntry): DeduplicationEntry | undefined {
  try {
    const value = entry.json<DeduplicationEntry>();
    return typeof value?.jobId === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
