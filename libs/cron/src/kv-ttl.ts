import { headers } from '@nats-io/nats-core';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { kvKeySubject, NATS_HEADERS } from '@berth/contract';
import { isWrongLastSequence } from '@berth/messaging';

export { isWrongLastSequence };

/**
 * A per-message TTL as the server reads it (`Nats-TTL`). The server counts TTLs in whole seconds and truncates
 * (measured on nats-server 2.14.9: "1500ms" expires after 1 s), so the value is rounded **up** to whole seconds:
 * an entry never expires before the time its writer counts on.
 */
export function ttlHeaderValue(ttlMs: number): string {
  return `${Math.max(1, Math.ceil(ttlMs / 1000))}s`;
}

/** The server-side lifetime that {@link ttlHeaderValue} gives an entry, in ms. */
export function effectiveTtlMs(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000)) * 1000;
}

/**
 * Replaces a KV entry only if it is still at `revision`, with a server-side TTL: the compare-and-set renewal of a
 * lease or lock. (`kv.update` of @nats-io/kv 3.4 cannot set a TTL, so this publishes to the key's subject with the
 * same headers the KV client uses.) `timeoutMs` bounds the wait for the answer (the connection's default otherwise):
 * a renewal that cannot be answered within a fraction of the TTL is as good as failed. Resolves with the new revision.
 *
 * @throws the JetStream error when the key moved on; test it with {@link isWrongLastSequence}.
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
 *
 * @throws the JetStream error when the key exists; test it with {@link isWrongLastSequence}.
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
