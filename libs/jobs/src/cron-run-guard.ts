import { systemClock, type Clock } from '@berth/contract';
import type { JobInfo } from './discovery/job-registry';

/** One run of a cron job, as a {@link CronRunGuard} sees it. */
export interface CronRun {
  /** The cron's job name. */
  name: string;
  queue: string;
  /**
   * The tick being run: the `scheduledAt` of the scheduler's tick job, or, for a cron job added by hand
   * (`add(CronJob.name, {})`, tests, an operator), the time it was added.
   */
  tick: Date;
  job: JobInfo;
}

/**
 * Wraps every run of a `@CronProcessor` job (any driver), for an overlap policy the job API does not own: the
 * service passes `MessageQueueModule.forRoot({ cronRunGuard })`, e.g. `@berth/cron`'s run lock, which skips a tick
 * (with a log line) while the previous run of the same cron is still going. The guard calls `run` to run the
 * handler, or resolves without calling it to skip the tick (the job then completes); an error from `run` must be
 * rethrown so the job is retried. `run` takes an optional `AbortSignal` (aborted when the guard's lock is lost),
 * which the handler receives as `JobInfo.signal`.
 */
export type CronRunGuard = (cron: CronRun, run: (signal?: AbortSignal) => Promise<void>) => Promise<unknown>;

/** The tick a cron job's data names (`{ scheduledAt }`), else when the job was added (else `clock`'s now). */
export function cronTickOf(data: unknown, info: JobInfo, clock: Clock = systemClock): Date {
  const scheduledAt =
    typeof data === 'object' && data !== null ? (data as { scheduledAt?: unknown }).scheduledAt : undefined;
  if (typeof scheduledAt === 'string') {
    const tick = new Date(scheduledAt);
    if (!Number.isNaN(tick.getTime())) return tick;
  }
  const added = new Date(info.addedAt);
  return Number.isNaN(added.getTime()) ? clock.now() : added;
}
