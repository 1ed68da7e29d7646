import { headers } from '@nats-io/nats-core';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { KV, KvEntry } from '@nats-io/kv';
import { kvKeySubject, NATS_HEADERS } from '@berth/contract';
import { isWrongLastSequence } from './streams';

/**
 * A per-message TTL as the server reads it (`Nats-TTL`). The server counts TTLs in whole seconds and truncates
 * ("1500ms" expires after 1 s on nats-server 2.14), so the value is rounded **up** to whole seconds: an entry never
 * expires before the time its writer counts on.
 */
export function ttlHeaderValue(ttlMs: number): string {
  return `${Math.max(1, Math.ceil(ttlMs / 1000))}s`;
}

/** The server-side lifetime that {@link ttlHeaderValue} gives an entry, in ms. */
export function effectiveTtlMs(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000)) * 1000;
}

/**
 * Replaces a KV entry only if it is still at `revision` (0: only if it was never written), with a server-side TTL.
 * (`kv.update` of @nats-io/kv 3.4 cannot set a TTL, so this publishes to the key's subject with the headers the KV
 * client uses.) `timeoutMs` bounds the wait for the answer. Resolves with the new revision.
 * @throws the JetStream error when the key moved on; test it with `isWrongLastSequence`.
 */
export async function updateWithTtl(
  js: JetStreamClient,
  bucket: string,
  key: string,
  value: string,
  revision: number,
  ttlMs: number,
  timeoutMs?: number,
): Promise<number> {
  const h = headers();
  h.set(NATS_HEADERS.expectedLastSubjectSequence, String(revision));
  h.set(NATS_HEADERS.ttl, ttlHeaderValue(ttlMs));
  const ack = await js.publish(kvKeySubject(bucket, key), value, { headers: h, timeout: timeoutMs });
  return ack.seq;
}

/**
 * Creates a KV entry with a server-side TTL only if the key is absent (never written, deleted, or expired): what
 * `kv.create(key, value, ttl)` does, with a bound on the wait for the answer. Resolves with the revision.
 * @throws the JetStream error when the key exists; test it with `isWrongLastSequence`.
 */
export async function createWithTtl(
  js: JetStreamClient,
  kv: KV,
  bucket: string,
  key: string,
  value: string,
  ttlMs: number,
  timeoutMs?: number,
): Promise<number> {
  try {
    return await updateWithTtl(js, bucket, key, value, 0, ttlMs, timeoutMs);
  } catch (error) {
    if (!isWrongLastSequence(error)) throw error;
    const entry = await kv.get(key);
    if (!entry || entry.operation === 'PUT') throw error;
    return updateWithTtl(js, bucket, key, value, entry.revision, ttlMs, timeoutMs);
  }
}

/** Options for {@link KvLease}. */
export interface KvLeaseOptions {
  js: JetStreamClient;
  /** The bucket's handle (it must allow per-message TTLs). */
  kv: KV;
  /** The bucket's name, for the key's subject. */
  bucket: string;
  key: string;
  /** The lease's lifetime without renewal; the server-side TTL is this rounded up to whole seconds. */
  ttlMs: number;
  /** How long a write may wait for the server's answer (the connection's default otherwise). */
  requestTimeoutMs?: number;
}

/**
 * One lease on one KV key, expired by the server's clock (a per-message TTL), every write a compare-and-set:
 * `acquire` creates it only when the key is free, `renew` replaces it only at the revision its holder wrote last,
 * `release` deletes it only at that revision. The holder's own bookkeeping (revisions, validity on its monotonic
 * clock, stepping down) stays with the caller, which knows what a failed renewal means to it.
 */
export class KvLease {
  constructor(private readonly options: KvLeaseOptions) {}

  /** Takes the lease if the key is free; resolves with the revision written, or undefined when someone holds it. */
  async acquire(value: string): Promise<number | undefined> {
    const { js, kv, bucket, key, ttlMs, requestTimeoutMs } = this.options;
    try {
      return await createWithTtl(js, kv, bucket, key, value, ttlMs, requestTimeoutMs);
    } catch (error) {
      if (isWrongLastSequence(error)) return undefined;
      throw error;
    }
  }

  /**
   * Writes the lease again with a fresh TTL if it is still at `revision`; resolves with the new revision.
   * @throws the JetStream error when the lease moved on (`isWrongLastSequence`) or the write failed.
   */
  async renew(value: string, revision: number): Promise<number> {
    const { js, bucket, key, ttlMs, requestTimeoutMs } = this.options;
    return updateWithTtl(js, bucket, key, value, revision, ttlMs, requestTimeoutMs);
  }

  /** Deletes the lease if it is still at `revision`; false when it moved on (taken over or expired and retaken). */
  async release(revision: number): Promise<boolean> {
    try {
      await this.options.kv.delete(this.options.key, { previousSeq: revision });
      return true;
    } catch (error) {
      if (isWrongLastSequence(error)) return false;
      throw error;
    }
  }

  /** The lease's entry as stored now, or null when nobody holds it (absent, released or expired). */
  async read(): Promise<KvEntry | null> {
    const entry = await this.options.kv.get(this.options.key);
    return entry && entry.operation === 'PUT' ? entry : null;
  }
}
