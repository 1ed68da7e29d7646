export {
  compileCronPattern,
  validateCronPattern,
  isValidTimeZone,
  CronPatternError,
  DEFAULT_TIME_ZONE,
} from './pattern';
export type { CompiledCron } from './pattern';
export { nextTickAfter, ticksBetween, latestTickAtOrBefore } from './tick-schedule';
export { planDueTicks, scheduleCursor } from './tick-plan';
export type { DueTicks, DueTicksInput } from './tick-plan';
export { openCronBuckets, CRON_BUCKET_NAMES } from './buckets';
export type { CronBuckets, CronBucketNames, CronBucketOptions } from './buckets';
export { CRON_QUEUE, definitionProblems, scheduleFromEntry, scheduledLine } from './schedule';
export type { CronDefinition, CronSchedule } from './schedule';
export { registerCronSchedules, readCronSchedules, resolveBuckets, listKeys, CronDefinitionError } from './registry';
export type { CronStoreSource, RegisterCronSchedulesOptions, CronRegistration } from './registry';
export { LastTickStore, lastTickFromEntry } from './last-tick';
export type { LastTickRecord } from './last-tick';
export { LeaderLease, readLease, LEADER_KEY } from './lease';
export type { LeaderLeaseOptions, LeaseRecord } from './lease';
export { createLeaseEvents } from './lease-events';
export type { LeaseEventMap, LeaseEvents } from './lease-events';
export { cronTickMessage, cronTickId, cronTickSubject, CRON_JOB_HEADERS } from './tick-message';
export type { CronTickPayload } from './tick-message';
export { listCrons } from './list-crons';
export type { CronListRow } from './list-crons';
export { withCronRunLock, readRunLock } from './run-lock';
export type { CronRunLockOptions, CronRunLockResult, CronRunLockHolder } from './run-lock';
export { cronRunLockGuard } from './run-guard';
export type { CronRunLockGuardOptions, GuardedCronRun } from './run-guard';
