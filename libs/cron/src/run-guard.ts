import type { BerthLogger } from '@berth/logger';
import type { CronBuckets } from './buckets';
import type { Clock } from '@berth/contract';
import { withCronRunLock, type CronRunLockResult } from './run-lock';

/** Options for {@link cronRunLockGuard}. */
export interface CronRunLockGuardOptions {
  buckets: Pick<CronBuckets, 'js' | 'runLocks' | 'names'>;
  /** This worker's id (`<hostname>:<pid>:<random>`), shown to the runs it makes skip. */
  holder: string;
  logger: BerthLogger;
  /** Lock lifetime without renewal (30 s by default); see {@link withCronRunLock}. */
  ttlMs?: number;
  clock?: Clock;
}

/** One run of a cron, as the job API hands it to its guard (its `CronRun`). */
export interface GuardedCronRun {
  name: string;
  tick: Date;
}

/**
 * The overlap policy (skip) as the job API's `cronRunGuard`: `MessageQueueModule.forRoot({ cronRunGuard:
 * cronRunLockGuard({ buckets, holder, logger }) })` runs every cron job inside {@link withCronRunLock}, so a tick
 * whose job starts while the previous run of the same cron still holds the lock is skipped with a log line, and its
 * job completes. (`@berth/jobs` and `@berth/cron` are on the same layer and do not import each other; the service
 * joins them, and the two types match by shape.)
 */
export function cronRunLockGuard(
  options: CronRunLockGuardOptions,
): (cron: GuardedCronRun, run: (signal: AbortSignal) => Promise<void>) => Promise<CronRunLockResult<void>> {
  return (cron, run) => withCronRunLock({ ...options, name: cron.name, tick: cron.tick }, run);
}
