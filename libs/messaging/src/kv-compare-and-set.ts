import { systemClock, type Clock } from '@berth/contract';
import type { KV, KvEntry } from '@nats-io/kv';
import { isWrongLastSequence } from './streams';

/** What a {@link compareAndSetKv} decision writes: a new value, a delete, or nothing. */
export type KvWrite<T> = { put: T } | { delete: true } | undefined;

/** A decision on the entry as read: what to write (if anything) and what the call resolves with once it is stored. */
export interface KvDecision<T, R> {
  write?: KvWrite<T>;
  result: R;
}

/** What a decision sees: the decoded value (undefined when absent, deleted or undecodable), the raw entry, the time. */
export interface KvReading<T> {
  value: T | undefined;
  entry: KvEntry | null;
  /** The clock's wall time (epoch ms) read after the entry. */
  now: number;
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
 * Read-modify-write of one KV entry by compare-and-set on its revision: reads the entry, asks `decide` what to write,
 * writes it only if the entry is still at the revision read (`create` when it was never written, `update` or a
 * revision-checked `delete` otherwise), and on a conflict (another writer moved the entry: API error 10071) reads
 * again and decides again, so every decision rests on the entry as it is. Resolves with the decision's result once
 * its write is stored (at once when it writes nothing; a delete of an entry already gone writes nothing).
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
  for (let round = 0; round < rounds; round++) {
    const entry = await kv.get(key);
    const value = entry && entry.operation === 'PUT' ? safeDecode(options.decode, entry) : undefined;
    const decision = await decide({ value, entry, now: clock.now().getTime() });
    const write = decision.write;
    if (!write) return decision.result;
    try {
      if ('delete' in write) {
        if (entry && entry.operation === 'PUT') await kv.delete(key, { previousSeq: entry.revision });
      } else if (entry) await kv.update(key, encode(write.put), entry.revision);
      else await kv.create(key, encode(write.put));
      return decision.result;
    } catch (error) {
      if (!isWrongLastSequence(error)) throw error;
    }
  }
  throw new KvContentionError(key, rounds, options.what);
}

function safeDecode<T>(decode: (entry: KvEntry) => T | undefined, entry: KvEntry): T | undefined {
  try {
    return decode(entry);
  } catch {
    return undefined;
  }
}
