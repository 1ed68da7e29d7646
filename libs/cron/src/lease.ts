import type { KV } from '@nats-io/kv';
import type { BerthLogger } from '@berth/logger';
import type { CronBuckets } from './buckets';
import { systemClock, type Clock } from '@berth/contract';
import { isWrongLastSequence, KvLease } from '@berth/messaging';
import { createLeaseEvents, type LeaseEvents } from './lease-events';

/** The key of the lease in the lease bucket. */
export const LEADER_KEY = 'leader';

/** The lease as stored: who holds it, since when, and the TTL it is renewed with. */
export interface LeaseRecord {
  holder: string;
  acquiredAt: string;
  renewedAt: string;
  ttlMs: number;
}

/** Options for {@link LeaderLease}. */
export interface LeaderLeaseOptions {
  buckets: Pick<CronBuckets, 'js' | 'lease' | 'names'>;
  /** This instance's id, unique among replicas and restarts (`<hostname>:<pid>:<random>`). */
  holder: string;
  /** Lease lifetime. The server-side TTL is this rounded up to whole seconds. At least 2000. */
  ttlMs: number;
  logger: BerthLogger;
  /** Time and the round timer; a `ManualClock` lets a test run the rounds by letting time pass. */
  clock?: Clock;
  /** Where the lease reports changes, renewals and rounds; a new emitter (see {@link LeaderLease.events}) by default. */
  events?: LeaseEvents;
  /** How often the leader renews; a third of the TTL by default. */
  renewEveryMs?: number;
  /** How often a follower tries to acquire; TTL/10 between 100 and 1000 ms by default. */
  acquireEveryMs?: number;
  /**
   * How long before the TTL runs out (counted from when the renewal was sent, on the monotonic clock) the leader
   * stops counting itself leader; TTL/10, at most 500 ms, by default.
   */
  safetyMarginMs?: number;
  /**
   * How long an acquisition or renewal may wait for the server's answer; TTL/3 between 500 and 5000 ms by default.
   * A renewal not answered in time counts as failed (step down), instead of keeping the round busy past the TTL.
   */
  requestTimeoutMs?: number;
}

/**
 * A leader lease on a JetStream KV key with a server-side TTL.
 *
 * - **Acquire**: create-if-absent (`kv.create` with `Nats-TTL`), so of several candidates exactly one wins.
 * - **Renew**: compare-and-set on the revision it last wrote, with a fresh TTL, every `renewEveryMs`.
 * - **Expire**: an abandoned lease (crashed, frozen or partitioned leader) is removed by the server when its TTL
 *   runs out, on the server's clock; followers then acquire it.
 * - **Step down** the moment a renewal fails (whatever the error: a timeout may hide a lost lease), or when the
 *   lease is older than it should be by the local monotonic clock: {@link isLeader} checks that on every call, and
 *   the scheduler calls it right before each emit, so a leader paused past its TTL (GC, SIGSTOP, VM migration)
 *   does not emit when it wakes. Leadership counts from when the request was *sent*, and the server's TTL from
 *   when it *stored* the entry, so the leader always believes less than the server grants.
 */
export class LeaderLease {
  /** The lease's typed events: `lease:change` on every change of leadership, `lease:renewed`, `lease:round`. */
  readonly events: LeaseEvents;
  private readonly clock: Clock;
  private readonly renewEveryMs: number;
  private readonly acquireEveryMs: number;
  private readonly safetyMarginMs: number;
  private readonly requestTimeoutMs: number;
  private leading = false;
  private term = 0;
  private revision = 0;
  private validUntil = 0;
  private lastRenewSent = 0;
  private since: Date | undefined;
  private cancelTimer: (() => void) | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly kvLease: KvLease;

  constructor(private readonly options: LeaderLeaseOptions) {
    if (options.ttlMs < 2000)
      throw new Error('The lease TTL must be at least 2000 ms (the server counts TTLs in whole seconds)');
    this.clock = options.clock ?? systemClock;
    this.events = options.events ?? createLeaseEvents();
    this.renewEveryMs = options.renewEveryMs ?? Math.floor(options.ttlMs / 3);
    this.acquireEveryMs = options.acquireEveryMs ?? Math.min(1000, Math.max(100, Math.floor(options.ttlMs / 10)));
    this.safetyMarginMs = options.safetyMarginMs ?? Math.min(500, Math.floor(options.ttlMs / 10));
    this.requestTimeoutMs = options.requestTimeoutMs ?? Math.min(5000, Math.max(500, Math.floor(options.ttlMs / 3)));
    const { js, lease, names } = options.buckets;
    this.kvLease = new KvLease({
      js,
      kv: lease,
      bucket: names.lease,
      key: LEADER_KEY,
      ttlMs: options.ttlMs,
      requestTimeoutMs: this.requestTimeoutMs,
    });
  }

  /** This instance's id. */
  get holder(): string {
    return this.options.holder;
  }

  /** When this instance became leader (undefined while following). */
  get leaderSince(): Date | undefined {
    return this.isLeader() ? this.since : undefined;
  }

  /**
   * True while this instance holds a lease that is still valid by the local monotonic clock. Steps down (and
   * reports it) the first time it finds the lease too old.
   */
  isLeader(): boolean {
    if (this.leading && this.clock.monotonic() >= this.validUntil)
      this.stepDown('lease expired by the local clock (no renewal in time)');
    return this.leading;
  }

  /** One round: the leader renews when due, a follower tries to acquire. Resolves with {@link isLeader}. */
  async maintain(): Promise<boolean> {
    if (this.isLeader()) {
      if (this.clock.monotonic() - this.lastRenewSent >= this.renewEveryMs) await this.renew();
    } else {
      await this.tryAcquire();
    }
    return this.isLeader();
  }

  /** Milliseconds until the next {@link maintain} is useful. */
  nextMaintainInMs(): number {
    if (!this.leading) return this.acquireEveryMs;
    return Math.max(0, this.lastRenewSent + this.renewEveryMs - this.clock.monotonic());
  }

  /** Runs {@link maintain} on the clock's timer until {@link stop}, emitting `lease:round` after each round. */
  start(): void {
    if (this.running) return;
    this.running = true;
    const round = async (): Promise<void> => {
      let failure: { error: unknown } | undefined;
      try {
        await this.maintain();
      } catch (error) {
        failure = { error };
        this.options.logger.warn({ err: error }, 'Leader lease round failed');
      }
      if (this.running) this.cancelTimer = this.clock.setTimer(this.nextMaintainInMs(), () => (this.loop = round()));
      this.events.emit('lease:round', { holder: this.holder, leading: this.leading, ...failure });
    };
    this.loop = round();
  }

  /** Stops the timer and releases the lease if this instance holds it, so a successor takes over at once. */
  async stop(): Promise<void> {
    this.running = false;
    this.cancelTimer?.();
    await this.loop;
    await this.release();
  }

  /** Deletes the lease if it is still the entry this instance wrote last (compare-and-set), and steps down. */
  async release(): Promise<void> {
    const revision = this.revision;
    if (this.leading) this.stepDown('released');
    if (revision === 0) return;
    this.revision = 0;
    try {
      if (await this.kvLease.release(revision))
        this.options.logger.info({ holder: this.holder }, 'Leader lease released');
    } catch (error) {
      this.options.logger.warn({ err: error }, 'Could not release the leader lease; it expires by its TTL');
    }
  }

  private record(acquiredAt: Date): string {
    const value: LeaseRecord = {
      holder: this.holder,
      acquiredAt: acquiredAt.toISOString(),
      renewedAt: this.clock.now().toISOString(),
      ttlMs: this.options.ttlMs,
    };
    return JSON.stringify(value);
  }

  private async tryAcquire(): Promise<void> {
    const sent = this.clock.monotonic();
    const now = this.clock.now();
    const acquired = await this.kvLease.acquire(this.record(now));
    if (acquired !== undefined) {
      this.becomeLeader(acquired, sent, now, 'acquired a free lease');
      return;
    }
    // Held: by someone else (follow), or still by this instance after it stepped down on a failed or late renewal.
    const current = await readLease(this.options.buckets.lease);
    if (current?.holder === this.holder) {
      const resent = this.clock.monotonic();
      try {
        const revision = await this.kvLease.renew(this.record(new Date(current.acquiredAt)), current.revision);
        this.becomeLeader(revision, resent, new Date(current.acquiredAt), 'renewed its own lease');
      } catch (error) {
        if (!isWrongLastSequence(error)) throw error;
      }
    }
  }

  private async renew(): Promise<void> {
    const term = this.term;
    const sent = this.clock.monotonic();
    try {
      const revision = await this.kvLease.renew(this.record(this.since ?? this.clock.now()), this.revision);
      this.revision = revision; // our write, whatever happened meanwhile: release() can still delete it
      if (term !== this.term) return;
      this.lastRenewSent = sent;
      if (this.leading) this.validUntil = sent + this.options.ttlMs - this.safetyMarginMs;
      this.events.emit('lease:renewed', { holder: this.holder, revision });
    } catch (error) {
      if (term !== this.term) return;
      if (isWrongLastSequence(error)) this.revision = 0;
      this.stepDown(`renewal failed: ${(error as Error).message}`);
    }
  }

  private becomeLeader(revision: number, sent: number, since: Date, how: string): void {
    this.term += 1;
    this.revision = revision;
    this.lastRenewSent = sent;
    this.validUntil = sent + this.options.ttlMs - this.safetyMarginMs;
    this.since = since;
    if (this.leading) return;
    this.leading = true;
    this.options.logger.info({ holder: this.holder, revision, ttlMs: this.options.ttlMs }, `Became leader (${how})`);
    this.events.emit('lease:change', { holder: this.holder, leading: true, reason: how });
  }

  private stepDown(reason: string): void {
    if (!this.leading) return;
    this.leading = false;
    this.term += 1;
    this.since = undefined;
    const level = reason === 'released' ? 'info' : 'warn';
    this.options.logger[level]({ holder: this.holder, reason }, `Stepped down: ${reason}`);
    this.events.emit('lease:change', { holder: this.holder, leading: false, reason });
  }
}

/** The current lease with its revision, or null when nobody leads (absent, released or expired). */
export async function readLease(kv: KV): Promise<(LeaseRecord & { revision: number }) | null> {
  const entry = await kv.get(LEADER_KEY);
  if (!entry || entry.operation !== 'PUT') return null;
  try {
    return { ...entry.json<LeaseRecord>(), revision: entry.revision };
  } catch {
    return null;
  }
}
