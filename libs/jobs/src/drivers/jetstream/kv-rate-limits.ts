import { BUCKETS } from '@berth/contract';
import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { ServerClock, type MonotonicClock } from '@berth/messaging';
import type { RateLimit } from '../../flow/rate-window';
import { KvGroupCommit, partitionOf } from './kv-group-commit';
import { encodeKey } from './kv-key-slots';
import { ratePartitionCodec, reserveStarts, startsInWindow, takeStarts, type RatePartition } from './rate-partition';

/** Options for {@link openKvRateLimits}. */
export interface KvRateLimitOptions {
  /** Bucket name; default `berth_job_rates`. */
  bucket?: string;
  replicas?: number;
  /** The server's clock as this process reads it (shared with the key slots); a new one by default. */
  clock?: ServerClock;
  /** The monotonic clock blocks of starts are used by (default `performance.now`); tests pass their own. */
  monotonic?: MonotonicClock;
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
  /** Starts in the last window, counting those a worker reserved and may not have used. */
  startsInWindow: number;
  /** When the latest refused job was told to come back (epoch ms, server time), if one is waiting. */
  waitingUntil?: number;
}

/** Entries per queue for its keys' windows (`<queue>._rates.<n>`); the queue's own limit has `<queue>._rates.queue`. */
export const RATE_PARTITIONS = 4;

/** How long a block of starts may be used at most (the window's length when that is shorter). */
export const MAX_BLOCK_HOLD_MS = 1000;

/** The most starts one block asks for. */
const MAX_BLOCK_STARTS = 64;

/** Block states kept before expired ones are dropped. */
const BLOCKS_KEPT = 10_000;

const QUEUE_WIDE = '_queue';

function encodedKeyOf(limit: KeyedRateLimit): string {
  return limit.key === undefined ? QUEUE_WIDE : encodeKey(limit.key);
}

function blockIdOf(queue: string, limit: KeyedRateLimit): string {
  return `${queue}.${encodedKeyOf(limit)}`;
}

/** Starts this process reserved for one key and has not used yet. */
interface Block {
  granted: number;
  left: number;
  /** Monotonic ms until which they may be used. */
  until: number;
  /** Reserved ahead by {@link RateLimits.prepare}. */
  prepared: boolean;
}

/**
 * Rate limits exact across every worker and replica, group committed like the key slots: the windows of a queue's
 * keys are spread over {@link RATE_PARTITIONS} entries of `berth_job_rates` (the queue's own limit has one entry of
 * its own), and the starts a process asks for one entry while its previous write is in flight are decided together
 * on a fresh read and written in one compare-and-set ({@link KvGroupCommit}), so of two workers racing for the last
 * start of a window one gets it and the other reads again and is refused.
 *
 * The rule is a sliding log over groups of starts ({@link takeStarts}): a start is allowed when fewer than `limit`
 * are in the last `perMs`. A worker whose key is busy but far below its limit reserves a block of starts in one
 * change and uses them without a write until the block's hold ends ({@link MAX_BLOCK_HOLD_MS} at most, measured
 * from before the write, so every start begins within the hold the log counts it for); a key at half its limit or
 * more is decided one start at a time. Starts are stamped with the server's timestamp of the write that recorded
 * them and judged by the server's time ({@link ServerClock}), one clock for every worker; a refused job is told
 * when to come back in server time, which is the clock JetStream's message schedules are judged by too.
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
  return new RateLimits(new KvGroupCommit(kv, ratePartitionCodec, clock), options.monotonic);
}

/** See {@link openKvRateLimits}. */
export class RateLimits {
  private readonly blocks = new Map<string, Block>();
  /** The reservation in flight per key: the other takes of the key wait for it, then use its block. */
  private readonly reserving = new Map<string, Promise<unknown>>();
  /**
   * Keys whose last prepared block ran out of time unused (their jobs waited longer than a hold for a slot): not
   * prepared again until a block of theirs is used up in time, so slow slots don't keep reserving starts for nothing.
   */
  private readonly preparedInVain = new Set<string>();

  constructor(
    readonly commits: KvGroupCommit<RatePartition>,
    private readonly monotonic: MonotonicClock = () => performance.now(),
  ) {}

  /** Records a start now if the limit allows it; otherwise says when to come back (epoch ms, server time). */
  async take(queue: string, limit: KeyedRateLimit): Promise<{ allowed: true } | { allowed: false; retryAt: number }> {
    const id = blockIdOf(queue, limit);
    for (;;) {
      if (this.useBlock(id)) return { allowed: true };
      const inFlight = this.reserving.get(id);
      if (!inFlight) break;
      await inFlight.catch(() => undefined);
    }
    return this.track(id, this.reserve(queue, limit, id, 'take'));
  }

  /**
   * Reserves a block of starts for a job that will soon take one (a job admitted, waiting for a worker slot), so
   * that its take finds the block here instead of waiting for a write; does nothing while a block is usable or
   * a reservation is in flight, nor for a key at half its limit or more. Never refuses a job: failures are left
   * to the take.
   */
  prepare(queue: string, limit: KeyedRateLimit): void {
    const id = blockIdOf(queue, limit);
    if (this.usable(id) || this.reserving.has(id)) return;
    if (this.judgePrepared(id)) return;
    this.track(id, this.reserve(queue, limit, id, 'prepare')).catch(() => undefined);
  }

  /** Whether the key's blocks say preparing it is in vain: its last prepared block unused, none used up in time since. */
  private judgePrepared(id: string): boolean {
    const previous = this.blocks.get(id);
    if (previous?.prepared && previous.left === previous.granted) this.preparedInVain.add(id);
    else if (previous && previous.granted > 1 && previous.left === 0) this.preparedInVain.delete(id);
    return this.preparedInVain.has(id);
  }

  private usable(id: string): Block | undefined {
    const block = this.blocks.get(id);
    return block && block.left > 0 && this.monotonic() < block.until ? block : undefined;
  }

  private useBlock(id: string): boolean {
    const block = this.usable(id);
    if (block) block.left -= 1;
    return block !== undefined;
  }

  private async track<R>(id: string, reservation: Promise<R>): Promise<R> {
    this.reserving.set(id, reservation);
    try {
      return await reservation;
    } finally {
      this.reserving.delete(id);
    }
  }

  /**
   * Asks the key's partition for a block of starts: twice the last block when it was used up within its hold, as
   * many as were used of it when not (one start for a key seen once in a while), two for a key seen first. A take
   * uses one start of what it gets and is refused when the window is full; a prepare keeps all it gets.
   */
  private async reserve(
    queue: string,
    limit: KeyedRateLimit,
    id: string,
    purpose: 'take' | 'prepare',
  ): Promise<{ allowed: true } | { allowed: false; retryAt: number }> {
    const previous = this.blocks.get(id);
    const size = !previous
      ? 2
      : previous.left > 0
        ? Math.max(1, previous.granted - previous.left)
        : Math.min(previous.granted * 2, MAX_BLOCK_STARTS);
    const request = { starts: size, holdMs: Math.min(limit.perMs, MAX_BLOCK_HOLD_MS) };
    const encoded = encodedKeyOf(limit);
    const partition = limit.key === undefined ? 'queue' : String(partitionOf(limit.key, RATE_PARTITIONS));
    // Measured before the write, so the block is used up before the end of the hold the log counts it for.
    const askedAt = this.monotonic();
    const grant = await this.commits.change(`${queue}._rates.${partition}`, (state, now) => {
      const window = (state.keys[encoded] ??= { groups: [], perMs: limit.perMs, nextReserved: 0 });
      if (purpose === 'take') return takeStarts(window, limit, request, now);
      const starts = reserveStarts(window, limit, request, now);
      return { allowed: true as const, starts, holdMs: request.holdMs };
    });
    if (!grant.allowed) {
      this.blocks.delete(id);
      this.preparedInVain.delete(id);
      return grant;
    }
    const kept = purpose === 'take' ? grant.starts - 1 : grant.starts;
    if (grant.starts > 0)
      this.keep(id, {
        granted: grant.starts,
        left: kept,
        until: askedAt + grant.holdMs,
        prepared: purpose === 'prepare',
      });
    return { allowed: true };
  }

  private keep(id: string, block: Block): void {
    if (this.blocks.size >= BLOCKS_KEPT && !this.blocks.has(id)) {
      const now = this.monotonic();
      for (const [other, kept] of this.blocks)
        if (kept.until <= now) {
          this.blocks.delete(other);
          this.preparedInVain.delete(other);
        }
    }
    this.blocks.set(id, block);
  }

  /** Keys of a queue (or every queue) with starts in their last window, or jobs told to wait. */
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
        const starts = startsInWindow(window, now);
        if (!waiting && starts === 0) continue;
        states.push({
          queue: entryQueue,
          ...(encoded === QUEUE_WIDE ? {} : { key: Buffer.from(encoded, 'base64url').toString('utf8') }),
          startsInWindow: starts,
          ...(waiting ? { waitingUntil: window.nextReserved } : {}),
        });
      }
    }
    return states;
  }
}
