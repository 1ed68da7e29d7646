import type { Messaging } from '@berth/messaging';
import { openKvKeySlots, type KeySlotState, type KvKeySlotOptions } from '../drivers/jetstream/kv-key-slots';
import { openKvRateLimits, type KvRateLimitOptions, type RateLimitState } from '../drivers/jetstream/kv-rate-limits';

/** The keys under a limit now: concurrency slots in use or jobs parked, and rate limits recently used or waited on. */
export interface LimitedKeys {
  concurrency: KeySlotState[];
  rates: RateLimitState[];
}

/**
 * Reads the per-key concurrency and rate-limit buckets: for each key of a queue (or every queue), the jobs running and
 * parked, and the starts of its rate window and until when refused jobs wait. For `berth jobs limited` and metrics.
 */
export async function listLimitedKeys(
  messaging: Messaging,
  queue?: string,
  options: { keySlots?: KvKeySlotOptions; rateLimits?: KvRateLimitOptions } = {},
): Promise<LimitedKeys> {
  const [slots, rates] = await Promise.all([
    openKvKeySlots(messaging.js, messaging.jsm, options.keySlots),
    openKvRateLimits(messaging.js, options.rateLimits),
  ]);
  const [concurrency, rateStates] = await Promise.all([slots.list(queue), rates.list(queue)]);
  return { concurrency, rates: rateStates };
}
