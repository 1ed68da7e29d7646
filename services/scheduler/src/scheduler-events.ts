import { EventEmitter } from 'node:events';
import type { LeaseEventMap } from '@berth/cron';

/** How the watcher took a schedule entry it read. */
export type ScheduleChange = 'added' | 'updated' | 'unchanged' | 'removed' | 'ignored';

/**
 * Everything a scheduler replica reports as it goes, on one typed emitter (graphile-worker's `WorkerEventMap`):
 * its lease's events, the schedule watcher's and the tick loop's. The scheduler wakes its tick loop on them; tests
 * wait on them instead of sleeping.
 */
export interface SchedulerEventMap extends LeaseEventMap {
  /** The watcher's first snapshot of the schedules bucket is applied. */
  'schedules:loaded': [{ count: number }];
  /** The watcher applied one entry of the schedules bucket (`ignored`: unreadable or not a valid pattern). */
  'schedule:applied': [{ name: string; revision: number; change: ScheduleChange }];
  /** The leader deleted the last tick of a cron that was unscheduled. */
  'schedule:forgotten': [{ name: string }];
  /** One tick was published to JOBS (`duplicate` when JetStream already had it). */
  'tick:emitted': [{ name: string; tick: Date; seq: number; duplicate: boolean }];
  /** A pass of the running tick loop ended; `next` is the earliest tick it will wake for. */
  'tick:pass': [{ leading: boolean; next?: Date }];
}

/** A typed emitter of {@link SchedulerEventMap}. */
export type SchedulerEvents = EventEmitter<SchedulerEventMap>;

/** A new emitter for scheduler events. */
export function createSchedulerEvents(): SchedulerEvents {
  return new EventEmitter<SchedulerEventMap>();
}
