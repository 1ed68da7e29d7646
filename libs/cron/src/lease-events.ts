import { EventEmitter } from 'node:events';

/**
 * What a {@link LeaderLease} reports as it goes (graphile-worker's `WorkerEventMap` style): the scheduler reacts to
 * `lease:change`, tests wait on these instead of sleeping. Every payload names the `holder`, so one emitter can
 * serve several leases.
 */
export interface LeaseEventMap {
  /** Leadership was gained (`leading: true`, with how) or lost (with why). */
  'lease:change': [{ holder: string; leading: boolean; reason: string }];
  /** A renewal was stored under `revision` (the leader keeps leading). */
  'lease:renewed': [{ holder: string; revision: number }];
  /** A timed round of {@link LeaderLease.start} ended, the next one being scheduled; `error` when it failed. */
  'lease:round': [{ holder: string; leading: boolean; error?: unknown }];
}

/** A typed emitter of {@link LeaseEventMap}, passed in through the lease's options or created by the lease. */
export type LeaseEvents = EventEmitter<LeaseEventMap>;

/** A new emitter for lease events. */
export function createLeaseEvents(): LeaseEvents {
  return new EventEmitter<LeaseEventMap>();
}
