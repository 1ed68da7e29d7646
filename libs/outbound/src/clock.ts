/** The current time (`@berth/contract`'s); injected everywhere so tests can run days in seconds. */
export { systemClock, type Clock } from '@berth/contract';
