import { systemClock, type Clock } from '@berth/contract';
import type { KV, KvEntry } from '@nats-io/kv';
import { compareAndSetKv } from './kv-compare-and-set';
import { takeStart, type RateLimit, type RateWindow } from './rate-window';

/** What {@link takeKvRateStart} decided: start now, or come back at `retryAt` (epoch ms). */
export type KvRateDecision = { allowed: true } | { allowed: false; retryAt: number };

/**
 * Takes a start from the rate window kept in one KV entry, exactly across every process that shares the bucket: the
 * entry (a {@link RateWindow} as JSON) is read, decided on with {@link takeStart}, and written back by compare-and-set
 * on the revision read, so of two processes racing for the last start of a window one gets it and the other reads
 * again and is refused. A refusal is written too (it moves `nextReserved`), so waiting callers everywhere are spread
 * one interval apart. `clock`'s wall time stamps the start: on several machines the guarantee is as good as their
 * clocks agree (NTP: milliseconds).
 * @throws the KV error when NATS fails, or `KvContentionError` when the entry keeps changing under 100 rounds.
 */
export async function takeKvRateStart(
  kv: KV,
  key: string,
  limit: RateLimit,
  clock: Clock = systemClock,
): Promise<KvRateDecision> {
  return compareAndSetKv<RateWindow, KvRateDecision>(
    kv,
    key,
    ({ value, now: at }) => {
      const decision = takeStart(value ?? { starts: [], nextReserved: 0 }, limit, at);
      return {
        write: { put: decision.window },
        result: decision.allowed ? { allowed: true } : { allowed: false, retryAt: decision.retryAt },
      };
    },
    { decode: decodeRateWindow, clock, what: `The rate window ${key}` },
  );
}

/** The rate window an entry holds; undefined when it holds something else (then it starts empty). */
export function decodeRateWindow(entry: KvEntry): RateWindow | undefined {
  try {
    const value = entry.json<RateWindow>();
    return Array.isArray(value?.starts) ? { starts: value.starts, nextReserved: value.nextReserved ?? 0 } : undefined;
  } catch {
    return undefined;
  }
}
