import type { KV } from '@nats-io/kv';
import { compareAndSetKv, type ServerClock } from '@berth/messaging';

/** How a partition's state is read from its KV entry and written back. */
export interface PartitionCodec<S> {
  /**
   * The state an entry's value holds (`undefined`: no entry yet, or a deleted one). `writtenAt` is the server's
   * timestamp of that entry: stamps written as 0 ("the time of this write") are read as it.
   */
  decode(value: string | undefined, writtenAt: number): S;
  encode(state: S): string;
  /** Drops what has expired by `now` (server time) before changes apply; optional. */
  prune?(state: S, now: number): void;
  /**
   * Stamps what a write recorded as 0 ("the time of this write") with the write's time, so that the state is what
   * `decode(encode(state), writtenAt)` would give. With it, a process's next write of an entry starts from the state
   * it wrote instead of parsing its own value again; optional.
   */
  settle?(state: S, writtenAt: number): void;
}

/**
 * One change of a partition's state: mutates `state` and returns its result, or throws before mutating to fail
 * alone. It must decide only from `state` and `now` (the server's time, see {@link ServerClock}), since after a
 * conflict it is applied again to a fresh read.
 */
export type PartitionChange<S, R> = (state: S, now: number) => R;

/**
 * The keyed object a partition entry's JSON holds (`{ keys: { … } }`), or undefined for no entry, invalid JSON or
 * another shape: a codec then starts from an empty partition.
 */
export function parsePartitionJson<K>(text: string | undefined): { keys: Record<string, K> } | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as { keys: Record<string, K> } | undefined;
    return value && typeof value.keys === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** An entry as a write starts from it. */
interface Base {
  value: string | undefined;
  revision: number;
  writtenAt: number;
}

/** An entry this process wrote: its value, and the state it holds when the codec can settle one. */
interface Written<S> extends Base {
  state?: S;
}

/** What one change gave: its result, or the error it threw (it then fails alone). */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Pending<S> {
  change: PartitionChange<S, unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Changes applied in one write at most (a flush under heavy load takes the rest in the next write). */
const MAX_CHANGES_PER_WRITE = 500;

/**
 * Group commit of many small changes into few KV writes: the changes asked for one entry (a partition) while its
 * previous write is in flight wait, then are applied together to a fresh read of the entry and written back in one
 * compare-and-set on its revision, one fsync for all of them. A conflict (another process wrote the entry) reads
 * the entry again and applies every change again, so each change decides on the entry as it is: changes stay exact
 * across processes. A change that changes nothing (a slot refused) is answered from the read, without a write.
 *
 * One write per partition is in flight per process; the batch grows with the load (about the changes asked during
 * one write's round trip and fsync).
 */
export class KvGroupCommit<S> {
  private readonly partitions = new Map<string, { pending: Pending<S>[]; flushing?: Promise<void> }>();
  /**
   * The entries this process wrote last: value, revision, and the server's time of the write as estimated when its
   * ack came back. The next write of the entry starts from it (one round trip instead of two while no other
   * process wrote the entry); a conflict means it is stale, and the entry is read afresh.
   */
  private readonly written = new Map<string, Written<S>>();
  /** Writes done and changes they carried, for the docs' figures and tests. */
  readonly stats = { writes: 0, changes: 0, conflicts: 0 };

  constructor(
    readonly kv: KV,
    private readonly codec: PartitionCodec<S>,
    readonly clock: ServerClock,
  ) {}

  /** Applies `change` to the entry `kvKey` in the next write of that entry; resolves with its result once stored. */
  change<R>(kvKey: string, change: PartitionChange<S, R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let partition = this.partitions.get(kvKey);
      if (!partition) {
        partition = { pending: [] };
        this.partitions.set(kvKey, partition);
      }
      partition.pending.push({ change, resolve: resolve as (value: unknown) => void, reject });
      if (!partition.flushing) partition.flushing = this.flush(kvKey, partition);
    });
  }

  /** The entry's state as stored now, and the server's time (a lower bound) when it was read. */
  async read(kvKey: string): Promise<{ state: S; now: number }> {
    const base = await this.readBase(kvKey);
    const state = this.codec.decode(base.value, base.writtenAt);
    const now = this.clock.now(base.writtenAt);
    this.codec.prune?.(state, now);
    return { state, now };
  }

  private async readBase(kvKey: string): Promise<Base> {
    const entry = await this.kv.get(kvKey);
    if (!entry) return { value: undefined, revision: 0, writtenAt: 0 };
    const writtenAt = entry.created.getTime();
    this.clock.observe(writtenAt);
    return { value: entry.operation === 'PUT' ? entry.string() : undefined, revision: entry.revision, writtenAt };
  }

  /** Resolves once every change asked so far is stored (or failed). */
  async drain(): Promise<void> {
    for (;;) {
      const flushing = [...this.partitions.values()].flatMap((partition) => partition.flushing ?? []);
      if (flushing.length === 0) return;
      await Promise.all(flushing);
    }
  }

  private async flush(kvKey: string, partition: { pending: Pending<S>[]; flushing?: Promise<void> }): Promise<void> {
    try {
      // Let the changes asked in the same tick join the first write.
      await Promise.resolve();
      while (partition.pending.length > 0) {
        const batch = partition.pending.splice(0, MAX_CHANGES_PER_WRITE);
        await this.commit(kvKey, batch).catch((error: unknown) => {
          for (const pending of batch) pending.reject(error);
        });
      }
    } finally {
      partition.flushing = undefined;
      this.partitions.delete(kvKey);
    }
  }

  /**
   * Applies the batch to the entry and writes it back by compare-and-set ({@link compareAndSetKv}), starting from
   * this process's last write of it when there is one; the changes' own results are given once the write is stored.
   */
  private async commit(kvKey: string, batch: Pending<S>[]): Promise<void> {
    const cached = this.written.get(kvKey);
    this.written.delete(kvKey);
    let results: Outcome[] = [];
    try {
      await compareAndSetKv<string, void>(
        this.kv,
        kvKey,
        (reading) => {
          const writtenAt = reading.known ? cached!.writtenAt : (reading.entry?.created.getTime() ?? 0);
          if (reading.entry) this.clock.observe(writtenAt);
          // The state this process wrote is used once: a conflict reads the entry again and decodes it.
          const state = reading.known && cached!.state ? cached!.state : this.codec.decode(reading.value, writtenAt);
          const now = this.clock.now(writtenAt);
          this.codec.prune?.(state, now);
          const baseline = this.codec.encode(state);
          results = batch.map((pending) => {
            try {
              return { ok: true as const, value: pending.change(state, now) };
            } catch (error) {
              return { ok: false as const, error };
            }
          });
          const next = this.codec.encode(state);
          // A decision to change nothing must rest on the entry as it is, not as this process last wrote it.
          if (next === baseline) return reading.known ? { reread: true } : { result: undefined };
          return {
            write: { put: next },
            resultOf: (revision) => {
              // Without a reading of the server's clock yet, the next write reads the entry (and its timestamp) again.
              if (this.clock.calibrated) {
                const at = this.clock.now(writtenAt);
                this.codec.settle?.(state, at);
                this.written.set(kvKey, {
                  value: next,
                  revision,
                  writtenAt: at,
                  ...(this.codec.settle ? { state } : {}),
                });
              }
              this.stats.writes += 1;
              this.stats.changes += batch.length;
            },
          };
        },
        {
          decode: (entry) => entry.string(),
          encode: (value) => value,
          known: cached,
          onConflict: () => {
            this.stats.conflicts += 1;
          },
        },
      );
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => {
      const result = results[index];
      if (result.ok) pending.resolve(result.value);
      else pending.reject(result.error);
    });
  }
}

/** A stable partition (0 … partitions − 1) of a key: FNV-1a over its UTF-8 bytes. */
export function partitionOf(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % partitions;
}
