import type { KV, KvEntry } from '@nats-io/kv';
import { compareAndSetKv } from './kv-compare-and-set';
import { takeStart, type RateLimit, type RateWindow } from './rate-window';
import type { ServerClock } from './server-clock';

/** What {@link takeKvRateStart} decided: start now, or ask again in `retryAfterMs`. */
export type KvRateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

/** A start stored as this, "the time of this write", is read back as the entry's server timestamp. */
const THIS_WRITE = 0;

/**
 * Takes a start from the rate window kept in one KV entry, exactly across every process that shares the bucket: the
 * entry (a {@link RateWindow} as JSON) is read, decided on with {@link takeStart}, and written back by compare-and-set
 * on the revision read, so of two processes racing for the last start of a window one gets it and the other reads
 * again and is refused. A refusal is written too (it moves `nextReserved`), so waiting callers everywhere are spread
 * one interval apart.
 *
 * Every time in the window is the server's: a start is stored as 0 and read back as the time the server stamped on
 * the write that recorded it, and a decision is taken at `clock`'s reading of the server's time (at least the
 * entry's stamp), so replicas whose wall clocks disagree still judge the window alike. A start is counted from its
 * write's stamp, which is never earlier than the start, so the window can only be judged later, never too early.
 * @throws the KV error when NATS fails, or `KvContentionError` when the entry keeps changing under 100 rounds.
 */
export async function takeKvRateStart(
  kv: KV,
  key: string,
  limit: RateLimit,
  clock: ServerClock,
): Promise<KvRateDecision> {
  return compareAndSetKv<RateWindow, KvRateDecision>(
    kv,
    key,
    ({ value, entry }) => {
      const writtenAt = entry?.created.getTime() ?? 0;
      if (entry) clock.observe(writtenAt);
      const now = clock.now(writtenAt);
      const decision = takeStart(value ?? { starts: [], nextReserved: 0 }, limit, now);
      if (decision.allowed) {
        const starts = decision.window.starts;
        return {
          write: { put: { ...decision.window, starts: [...starts.slice(0, -1), THIS_WRITE] } },
          result: { allowed: true },
        };
      }
      return {
        write: { put: decision.window },
        result: { allowed: false, retryAfterMs: Math.max(0, decision.retryAt - now) },
      };
    },
    { decode: decodeRateWindow, what: `The rate window ${key}` },
  );
}

/**
 * The rate window an entry holds, its starts on the server's clock (those stored as "this write" read as the entry's
 * stamp); undefined when it holds something else (then it starts empty).
 */
export function decodeRateWindow(entry: KvEntry): RateWindow | undefined {
  try {
    const value = entry.json<RateWindow>();
    if (!Array.isArray(value?.starts)) return undefined;
    const writtenAt = entry.created.getTime();
    return {
      starts: value.starts.map((at) => (at === THIS_WRITE ? writtenAt : at)),
      nextReserved: value.nextReserved ?? 0,
    };
  } catch {
    return undefined;
  }
}
