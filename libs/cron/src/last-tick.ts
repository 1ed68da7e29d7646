import type { KV, KvEntry } from '@nats-io/kv';
import { systemClock, type Clock } from '@berth/contract';
import { compareAndSetKv } from '@berth/messaging';

/** The last tick emitted for a schedule, as stored under its name in the last-tick bucket. */
export interface LastTickRecord {
  /** ISO time of the tick (its `scheduledAt`). */
  tick: string;
  /** ISO time it was published. */
  emittedAt: string;
  /** The scheduler instance that published it. */
  by: string;
}

/** Reads a stored last tick; undefined for a missing, deleted or unreadable entry. */
export function lastTickFromEntry(entry: KvEntry | null): LastTickRecord | undefined {
  if (!entry || entry.operation !== 'PUT') return undefined;
  try {
    const value = entry.json<LastTickRecord>();
    return typeof value?.tick === 'string' && !Number.isNaN(Date.parse(value.tick)) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The leader's view of the last-tick bucket: read once per schedule, then kept in memory with its revision and
 * written with compare-and-set, so it never moves backwards even if a deposed leader records late.
 */
export class LastTickStore {
  private readonly cache = new Map<string, { record?: LastTickRecord; revision: number }>();

  constructor(
    private readonly kv: KV,
    private readonly by: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The last emitted tick of `name`, if any (read from the bucket the first time). */
  async get(name: string): Promise<Date | undefined> {
    const { record } = await this.load(name);
    return record ? new Date(record.tick) : undefined;
  }

  /**
   * Records `tick` as emitted, unless a later one is already recorded: compare-and-set starting from the cached
   * entry (one round trip while this leader is the only writer); a conflict reads the entry again and decides again.
   */
  async record(name: string, tick: Date): Promise<void> {
    const known = await this.load(name);
    await compareAndSetKv<LastTickRecord, void>(
      this.kv,
      name,
      ({ value, revision }) => {
        if (value && new Date(value.tick) >= tick) {
          this.cache.set(name, { record: value, revision });
          return { result: undefined };
        }
        const record: LastTickRecord = {
          tick: tick.toISOString(),
          emittedAt: this.clock.now().toISOString(),
          by: this.by,
        };
        return {
          write: { put: record },
          resultOf: (stored) => void this.cache.set(name, { record, revision: stored }),
        };
      },
      {
        decode: lastTickFromEntry,
        known: { value: known.record, revision: known.revision },
        rounds: 5,
        clock: this.clock,
        what: `The last tick of ${name}`,
        onConflict: () => this.cache.delete(name),
      },
    );
  }

  /** Forgets what was read, so the next {@link get} reads the bucket again (on becoming leader). */
  clear(): void {
    this.cache.clear();
  }

  private async load(name: string): Promise<{ record?: LastTickRecord; revision: number }> {
    let known = this.cache.get(name);
    if (!known) {
      const entry = await this.kv.get(name);
      known = {
        record: lastTickFromEntry(entry),
        revision: entry && entry.operation === 'PUT' ? entry.revision : 0,
      };
      this.cache.set(name, known);
    }
    return known;
  }
}
