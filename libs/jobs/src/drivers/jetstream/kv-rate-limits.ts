import { BUCKETS } from '@berth/contract';
import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { decodeRateWindow, takeKvRateStart } from '@berth/messaging';
import type { RateLimit } from '../../flow/rate-window';
import { encodeKey } from './kv-key-slots';

/** Options for {@link openKvRateLimits}. */
export interface KvRateLimitOptions {
  /** Bucket name; default `berth_job_rates`. */
  bucket?: string;
  replicas?: number;
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
  /** When the latest refused job was told to come back (epoch ms), if one is waiting. */
  waitingUntil?: number;
}

const QUEUE_WIDE = '_queue';

/**
 * Rate limits exact across every worker and replica: one KV entry per queue and key (`<queue>.<base64url key>`, or
 * `<queue>._queue` for the queue's own limit, in `berth_job_rates`) holds the latest starts, changed only by
 * compare-and-set, so of two workers racing for the last start of a window one gets it and the other is refused.
 * See `takeStart` (`@berth/messaging`) for the rule. Clocks: each worker's clock stamps its starts, so on several machines the
 * guarantee is as good as their clocks agree (NTP: milliseconds).
 */
export async function openKvRateLimits(js: JetStreamClient, options: KvRateLimitOptions = {}): Promise<RateLimits> {
  const kv = await new Kvm(js).create(options.bucket ?? BUCKETS.jobRates, {
    history: 1,
    ttl: 24 * 60 * 60 * 1000,
    replicas: options.replicas ?? 1,
    description: 'Rate limits of Berth jobs: latest starts per queue and key',
  });
  return new RateLimits(kv);
}

/** See {@link openKvRateLimits}. */
export class RateLimits {
  constructor(private readonly kv: KV) {}

  /** Records a start now if the limit allows it; otherwise says when to come back. */
  async take(
    queue: string,
    limit: KeyedRateLimit,
    now: () => number = Date.now,
  ): Promise<{ allowed: true } | { allowed: false; retryAt: number }> {
    const kvKey = `${queue}.${limit.key === undefined ? QUEUE_WIDE : encodeKey(limit.key)}`;
    return takeKvRateStart(this.kv, kvKey, limit, now);
  }

  /** Keys of a queue (or every queue) with starts in their last window of `windowMs`, or jobs told to wait. */
  async list(queue?: string, now = Date.now()): Promise<RateLimitState[]> {
    const keys: string[] = [];
    for await (const key of await this.kv.keys(queue ? `${queue}.>` : '>')) keys.push(key);
    const states: RateLimitState[] = [];
    for (const kvKey of keys) {
      const entry = await this.kv.get(kvKey);
      const window = entry && entry.operation === 'PUT' ? decodeRateWindow(entry) : undefined;
      if (!window) continue;
      const [entryQueue, encoded] = kvKey.split('.');
      const waiting = window.nextReserved > now;
      const latest = window.starts[window.starts.length - 1] ?? 0;
      if (!waiting && latest < now - 60000) continue;
      states.push({
        queue: entryQueue,
        ...(encoded === QUEUE_WIDE ? {} : { key: Buffer.from(encoded, 'base64url').toString('utf8') }),
        startsInWindow: window.starts.length,
        ...(waiting ? { waitingUntil: window.nextReserved } : {}),
      });
    }
    return states;
  }
}
