import type { KV, KvEntry } from '@nats-io/kv';
import { takeStart, type RateLimit, type RateWindow } from './rate-window';

/** What {@link takeKvRateStart} decided: start now, or come back at `retryAt` (epoch ms). */
export type KvRateDecision = { allowed: true } | { allowed: false; retryAt: number };

const WRONG_LAST_SEQUENCE = /wrong last sequence|10071|exists/i;

/**
 * Takes a start from the rate window kept in one KV entry, exactly across every process that shares the bucket: the
 * entry (a {@link RateWindow} as JSON) is read, decided on with {@link takeStart}, and written back by compare-and-set
 * on the revision read, so of two processes racing for the last start of a window one gets it and the other reads
 * again and is refused. A refusal is written too (it moves `nextReserved`), so waiting callers everywhere are spread
 * one interval apart. `now` stamps the start (epoch ms): on several machines the guarantee is as good as their
 * clocks agree (NTP: milliseconds).
 * @throws the KV error when NATS fails, or when the entry keeps changing under 100 rounds of contention.
 */
export async function takeKvRateStart(
  kv: KV,
  key: string,
  limit: RateLimit,
  now: () => number = Date.now,
): Promise<KvRateDecision> {
  for (let round = 0; round < 100; round++) {
    const current = await kv.get(key);
    const window = (current && current.operation === 'PUT' ? decodeRateWindow(current) : undefined) ?? {
      starts: [],
      nextReserved: 0,
    };
    const decision = takeStart(window, limit, now());
    try {
      if (current) await kv.update(key, JSON.stringify(decision.window), current.revision);
      else await kv.create(key, JSON.stringify(decision.window));
      return decision.allowed ? { allowed: true } : { allowed: false, retryAt: decision.retryAt };
    } catch (error) {
      if (!WRONG_LAST_SEQUENCE.test(String((error as Error)?.message ?? error))) throw error;
    }
  }
  throw new Error(`The rate window ${key} keeps changing`);
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
