import type { KV, KvEntry } from '@nats-io/kv';
import { systemClock, type Clock } from '@berth/contract';
import { isWrongLastSequence } from '@berth/messaging';

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
  private readonly cache = new Map<string, { tick?: Date; revision: number }>();

  constructor(
    private readonly kv: KV,
    private readonly by: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The last emitted tick of `name`, if any (read from the bucket the first time). */
  async get(name: string): Promise<Date | undefined> {
    return (await this.load(name)).tick;
  }

  /**
   * Records `tick` as emitted, unless a later one is already recorded. Compare-and-set on the cached revision; on a
   * conflict it re-reads and tries again.
   */
  async record(name: string, tick: Date): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const known = await this.load(name);
      if (known.tick && known.tick >= tick) return;
      const value: LastTickRecord = {
        tick: tick.toISOString(),
        emittedAt: this.clock.now().toISOString(),
        by: this.by,
      };
      try {
        const revision =
          known.revision > 0
            ? await this.kv.update(name, JSON.stringify(value), known.revision)
            : await this.kv.create(name, JSON.stringify(value));
        this.cache.set(name, { tick, revision });
        return;
      } catch (error) {
        if (!isWrongLastSequence(error)) throw error;
        this.cache.delete(name);
      }
    }
    throw new Error(`Could not record the last tick of ${name}: the entry kept changing`);
  }

  /** Forgets what was read, so the next {@link get} reads the bucket again (on becoming leader). */
  clear(): void {
    this.cache.clear();
  }

  private async load(name: string): Promise<{ tick?: Date; revision: number }> {
    let known = this.cache.get(name);
    if (!known) {
      const entry = await this.kv.get(name);
      const record = lastTickFromEntry(entry);
      known = {
        tick: record ? new Date(record.tick) : undefined,
        revision: entry && entry.operation === 'PUT' ? entry.revision : 0,
      };
      this.cache.set(name, known);
    }
    return known;
  }
}
