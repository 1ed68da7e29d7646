import { systemClock, type Clock } from '@berth/contract';
import type { KV, KvEntry } from '@nats-io/kv';
import { isWrongLastSequence } from './streams';

/**
 * A value to write. `ttl` (`"30s"`; the bucket must allow per-message TTLs) makes the server expire the entry after
 * it unless it is written again; only a write that creates the entry (it holds no value) carries one, since a KV
 * update has no TTL: a `ttl` on an entry that holds a value is refused with a `TypeError`.
 */
export interface KvPut<T> {
  put: T;
  ttl?: string;
}

/** What a {@link compareAndSetKv} decision writes: a new value, a delete, or nothing. */
export type KvWrite<T> = KvPut<T> | { delete: true } | undefined;

/**
 * A decision on the entry as read: what to write (if anything) and what the call resolves with once it is stored;
 * `resultOf` when the result names the revision the write stored (a caller that conditions its next write on it);
 * `reread` to decide again on a fresh read, after deleting the entry at the revision read if `write` says so (a
 * decision that must not rest on a {@link KvKnownEntry}, or that clears a stale entry before taking the key).
 */
export type KvDecision<T, R> =
  | { write?: KvWrite<T>; result: R }
  | { write: KvPut<T>; resultOf: (revision: number) => R }
  | { write?: { delete: true }; reread: true };

/**
 * What a decision sees: the decoded value (undefined when absent, deleted or undecodable), its revision (0: never
 * written), the raw entry (null when absent, or when the round starts from a known entry), the time.
 */
export interface KvReading<T> {
  value: T | undefined;
  revision: number;
  entry: KvEntry | null;
  /** True when this round decides on the caller's {@link KvKnownEntry} instead of a read. */
  known: boolean;
  /** The clock's wall time (epoch ms) read after the entry. */
  now: number;
}

/**
 * An entry as the caller already knows it (its own last write, or "absent" as revision 0), to decide the first
 * round on without reading it: one round trip instead of two while nobody else writes the entry. A conflict reads
 * it as usual.
 */
export interface KvKnownEntry<T> {
  value: T | undefined;
  revision: number;
}

/** Options for {@link compareAndSetKv}. */
export interface KvCompareAndSetOptions<T> {
  /** Reads a stored PUT entry; undefined for a value it does not recognise (treated as absent). */
  decode: (entry: KvEntry) => T | undefined;
  /** Writes a value; `JSON.stringify` by default. */
  encode?: (value: T) => string;
  /** Read-decide-write rounds before {@link KvContentionError}; 100 by default. */
  rounds?: number;
  /** Gives each decision its time (`now`, epoch ms); {@link systemClock} by default. */
  clock?: Clock;
  /** Names the entry in the error thrown when contention persists. */
  what?: string;
  /** The entry the first round decides on instead of reading it (see {@link KvKnownEntry}). */
  known?: KvKnownEntry<T>;
  /** Told of every conflict (another writer moved the entry between a read and its write), for statistics. */
  onConflict?: () => void;
}

/** Thrown by {@link compareAndSetKv} when the entry changed under every round. */
export class KvContentionError extends Error {
  constructor(
    readonly key: string,
    rounds: number,
    what?: string,
  ) {
    super(`${what ?? `The KV entry ${key}`} keeps changing under ${rounds} rounds of contention`);
    this.name = 'KvContentionError';
  }
}

/**
 * Read-modify-write of one KV entry by compare-and-set on its revision: reads the entry (or starts from a known
 * one), asks `decide` what to write, writes it only if the entry is still at that revision (`create` when it was
 * never written, `update` or a revision-checked `delete` otherwise), and on a conflict (another writer moved the
 * entry: API error 10071) reads again and decides again, so every decision rests on the entry as it is. Resolves
 * with the decision's result once its write is stored (at once when it writes nothing; a delete of an entry already
 * gone writes nothing).
 * @throws the JetStream error of any other failure, or {@link KvContentionError} after `rounds` conflicts.
 */
export async function compareAndSetKv<T, R>(
  kv: KV,
  key: string,
  decide: (reading: KvReading<T>) => KvDecision<T, R> | Promise<KvDecision<T, R>>,
  options: KvCompareAndSetOptions<T>,
): Promise<R> {
  const rounds = options.rounds ?? 100;
  const encode = options.encode ?? ((value: T) => JSON.stringify(value));
  const clock = options.clock ?? systemClock;
  let known = options.known;
  for (let round = 0; round < rounds; round++) {
    const reading = known ? knownReading(known) : await read(kv, key, options.decode);
    known = undefined;
    const { present, ...seen } = reading;
    const decision = await decide({ ...seen, now: clock.now().getTime() });
    const write = decision.write;
    try {
      if ('reread' in decision) {
        if (write && present) await kv.delete(key, { previousSeq: reading.revision });
        continue;
      }
      if ('resultOf' in decision)
        return decision.resultOf(await put(kv, key, encode(decision.write.put), reading, decision.write.ttl));
      if (!write) return decision.result;
      if ('delete' in write) {
        if (present) await kv.delete(key, { previousSeq: reading.revision });
      } else await put(kv, key, encode(write.put), reading, write.ttl);
      return decision.result;
    } catch (error) {
      if (!isWrongLastSequence(error)) throw error;
      options.onConflict?.();
    }
  }
  throw new KvContentionError(key, rounds, options.what);
}

type Reading<T> = Omit<KvReading<T>, 'now'> & { present: boolean };

async function read<T>(kv: KV, key: string, decode: (entry: KvEntry) => T | undefined): Promise<Reading<T>> {
  const entry = await kv.get(key);
  const present = entry !== null && entry.operation === 'PUT';
  const value = present ? safeDecode(decode, entry) : undefined;
  return { value, revision: entry?.revision ?? 0, entry, known: false, present };
}

function knownReading<T>(known: KvKnownEntry<T>): Reading<T> {
  return { value: known.value, revision: known.revision, entry: null, known: true, present: known.value !== undefined };
}

/**
 * Writes `value` where `reading` saw the entry: at its revision when it held a value or a delete, `create` (only if
 * nobody wrote it) when it was never written, and `create` with the TTL when there is one (the KV client's create
 * takes a deleted entry too, at the revision it reads then, so the write still needs the entry to hold no value).
 */
function put(kv: KV, key: string, value: string, reading: Reading<unknown>, ttl: string | undefined): Promise<number> {
  if (ttl !== undefined) {
    if (reading.present) throw new TypeError(`A KV update carries no TTL: ${key} holds a value`);
    return kv.create(key, value, ttl);
  }
  return reading.revision === 0 ? kv.create(key, value) : kv.update(key, value, reading.revision);
}

function safeDecode<T>(decode: (entry: KvEntry) => T | undefined, entry: KvEntry): T | undefined {
  try {
    return decode(entry);
  } catch {
    return undefined;
  }
}
