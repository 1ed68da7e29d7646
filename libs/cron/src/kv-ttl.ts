// The TTL writes and the compare-and-set test live in @berth/messaging beside its KV lease; cron re-exports them.
export { createWithTtl, effectiveTtlMs, isWrongLastSequence, ttlHeaderValue, updateWithTtl } from '@berth/messaging';
