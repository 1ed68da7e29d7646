import { BUCKETS } from '@berth/contract';
import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { RateLimit } from '../../flow/rate-window';
import { KvGroupCommit, partitionOf, type PartitionCodec } from './kv-group-commit';
import { encodeKey } from './kv-key-slots';
import { ServerClock } from './server-clock';

/** Options for {@link openKvRateLimits}. */
export interface KvRateLimitOptions {
  /** Bucket name; default `berth_job_rates`. */
  bucket?: string;
  replicas?: number;
  /** The server's clock as this process reads it (shared with the key slots); a new one by default. */
  clock?: ServerClock;
}

/** A rate limit on one key (or, with key `undefined`, on the whole queue). */
export interface KeyedRateLimit extends RateLimit {
  key?: string;
}

/** One rate-limited key, as `berth jobs limited` shows it. */
export interface RateLimitState {
  queue: string;
  /** Undefined for a queue-wide limit. */
  key?: string;
  /** Starts in the last window. */
  startsInWindow: number;
  /** When the latest refused job was told to come back (epoch ms, server time), if one is waiting. */
  waitingUntil?: number;
}

/** Entries per queue for its keys' windows (`<queue>._rates.<n>`); the queue's own limit has `<queue>._rates.queue`. */
export const RATE_PARTITIONS = 4;

const QUEUE_WIDE = '_queue';

/** One key's sliding log: its latest starts (server ms; 0 = the time of this write), its window, the next reservation. */
interface KeyWindow {
  starts: number[];
  perMs: number;
  nextReserved: number;
}

interface RatePartition {
  keys: Record<string, KeyWindow>;
}

const codec: PartitionCodec<RatePartition> = {
  decode(text, writtenAt) {
    const value = text === undefined ? undefined : parse(text);
    const keys: Record<string, KeyWindow> = {};
    for (const [key, window] of Object.entries(value?.keys ?? {}))
      keys[key] = {
        starts: window.starts.map((at) => at || writtenAt),
        perMs: window.perMs,
        nextReserved: window.nextReserved ?? 0,
      };
    return { keys };
  },
  encode: (state) => JSON.stringify(state),
  prune(state, now) {
    for (const [key, window] of Object.entries(state.keys)) {
      window.starts = window.starts.filter((at) => at > now - window.perMs);
      if (window.starts.length === 0 && window.nextReserved <= now) delete state.keys[key];
    }
  },
};

/**
 * Rate limits exact across every worker and replica, group committed like the key slots: the windows of a queue's
 * keys are spread over {@link RATE_PARTITIONS} entries of `berth_job_rates` (the queue's own limit has one entry of
 * its own), and the starts a process asks for one entry while its previous write is in flight are decided together
 * on a fresh read and written in one compare-and-set ({@link KvGroupCommit}), so of two workers racing for the last
 * start of a window one gets it and the other reads again and is refused.
 *
 * The rule is a sliding log: a start is allowed when fewer than `limit` starts are in the last `perMs`. Starts are
 * stamped with the server's timestamp of the write that recorded them and judged by the server's time
 * ({@link ServerClock}), one clock for every worker; a refused job is told when to come back in server time, which
 * is the clock JetStream's message schedules are judged by too. Refused jobs are spread one interval
 * (`perMs / limit`) apart.
 */
export async function openKvRateLimits(js: JetStreamClient, options: KvRateLimitOptions = {}): Promise<RateLimits> {
  const kv = await new Kvm(js).create(options.bucket ?? BUCKETS.jobRates, {
    history: 1,
    ttl: 24 * 60 * 60 * 1000,
    replicas: options.replicas ?? 1,
    description: 'Rate limits of Berth jobs: latest starts per queue and key (key: <queue>._rates.<partition>)',
  });
  const clock = options.clock ?? new ServerClock();
  // A first reading of the server's clock, before any window is judged.
  clock.observeStreamInfo((await kv.status()).streamInfo);
  return new RateLimits(new KvGroupCommit(kv, codec, clock));
}

/** See {@link openKvRateLimits}. */
export class RateLimits {
  constructor(readonly commits: KvGroupCommit<RatePartition>) {}

  /** Records a start now if the limit allows it; otherwise says when to come back (epoch ms, server time). */
  take(queue: string, limit: KeyedRateLimit): Promise<{ allowed: true } | { allowed: false; retryAt: number }> {
    const encoded = limit.key === undefined ? QUEUE_WIDE : encodeKey(limit.key);
    const partition = limit.key === undefined ? 'queue' : String(partitionOf(limit.key, RATE_PARTITIONS));
    return this.commits.change(`${queue}._rates.${partition}`, (state, now) => {
      const window = (state.keys[encoded] ??= { starts: [], perMs: limit.perMs, nextReserved: 0 });
      window.perMs = limit.perMs;
      const inWindow = window.starts.filter((at) => at === 0 || at > now - limit.perMs);
      const starts = inWindow.slice(-limit.limit);
      if (starts.length < limit.limit) {
        window.starts = [...starts, 0];
        return { allowed: true as const };
      }
      const freesAt = (starts[0] || now) + limit.perMs;
      const retryAt = Math.max(freesAt, window.nextReserved);
      window.starts = starts;
      window.nextReserved = retryAt + limit.perMs / limit.limit;
      return { allowed: false as const, retryAt };
    });
  }

  /** Keys of a queue (or every queue) with starts in their last minute, or jobs told to wait. */
  async list(queue?: string): Promise<RateLimitState[]> {
    const kvKeys: string[] = [];
    for await (const kvKey of await this.commits.kv.keys(queue ? `${queue}._rates.*` : '*._rates.*'))
      kvKeys.push(kvKey);
    const states: RateLimitState[] = [];
    for (const kvKey of kvKeys) {
      const { state, now } = await this.commits.read(kvKey);
      const entryQueue = kvKey.split('.')[0];
      for (const [encoded, window] of Object.entries(state.keys)) {
        const waiting = window.nextReserved > now;
        if (!waiting && window.starts.length === 0) continue;
        states.push({
          queue: entryQueue,
          ...(encoded === QUEUE_WIDE ? {} : { key: Buffer.from(encoded, 'base64url').toString('utf8') }),
          startsInWindow: window.starts.length,
          ...(waiting ? { waitingUntil: window.nextReserved } : {}),
        });
      }
    }
    return states;
  }
}

function parse(text: string): RatePartition | undefined {
  try {
    const value = JSON.parse(text) as RatePartition | undefined;
    return value && typeof value.keys === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}
