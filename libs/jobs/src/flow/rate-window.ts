/** The sliding-log rate window moved to `@berth/messaging`, shared with the dispatcher's per-endpoint limits. */
export { takeStart, type RateDecision, type RateLimit, type RateWindow } from '@berth/messaging';
