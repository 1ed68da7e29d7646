import { systemClock } from '@berth/contract';

/**
 * The fair feeder's clock, wall time as epoch ms, until it takes the contract's `Clock` (`@berth/contract`) as the
 * rest of the library does; internal, not exported. Delete this file once `fair-feeder.ts` reads
 * `clock.now().getTime()`.
 */
export interface JobClock {
  now(): number;
  monotonic(): number;
  setTimer(ms: number, callback: () => void): () => void;
}

/** {@link systemClock} read as epoch ms. */
export const systemJobClock: JobClock = {
  now: () => systemClock.now().getTime(),
  monotonic: () => systemClock.monotonic(),
  setTimer: (ms, callback) => systemClock.setTimer(ms, callback),
};
