import type { KvEntry } from '@nats-io/kv';
import { compileCronPattern, DEFAULT_TIME_ZONE } from './pattern';

/** The queue cron jobs run on (seed 000: "a cron is an ordinary job of the cron-queue"). */
export const CRON_QUEUE = 'cron-queue';

/** What a service declares for one cron (the job API builds these from `@CronProcessor` classes). */
export interface CronDefinition {
  /** The cron class name: the job name, the KV key and the last subject token (`[A-Za-z0-9][A-Za-z0-9_-]*`). */
  name: string;
  /** 5 fields, or 6 with seconds first. */
  pattern: string;
  /** IANA zone the pattern is read in; UTC when unset. */
  timeZone?: string;
  /** The queue the tick jobs go to; `cron-queue` when unset. */
  queue?: string;
}

/** One registered schedule, as stored in the schedules bucket under its name. */
export interface CronSchedule {
  name: string;
  pattern: string;
  timeZone: string;
  queue: string;
  /** The service that registered it; only that service removes it. */
  owner: string;
  /** ISO time the current pattern and zone were first registered: no tick before it is ever emitted. */
  since: string;
  /** ISO time of the last write. */
  updatedAt: string;
}

/** One subject token, as the job API requires of job and queue names: starts with a letter or digit. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Problems with a definition (name, pattern, zone, queue), empty when it is valid. */
export function definitionProblems(definition: CronDefinition): string[] {
  const problems: string[] = [];
  if (!NAME.test(definition.name ?? ''))
    problems.push(
      `cron name "${definition.name}" must be 1-128 characters of A-Z, a-z, 0-9, "_" and "-", starting with a letter or digit`,
    );
  const queue = definition.queue ?? CRON_QUEUE;
  if (!NAME.test(queue)) problems.push(`${definition.name}: queue "${queue}" is not a subject token`);
  try {
    compileCronPattern(definition.pattern ?? '', definition.timeZone ?? DEFAULT_TIME_ZONE);
  } catch (error) {
    problems.push(`${definition.name}: ${(error as Error).message}`);
  }
  return problems;
}

/** Reads a stored schedule; undefined for a delete marker or a value that is not a valid schedule. */
export function scheduleFromEntry(entry: KvEntry | null): CronSchedule | undefined {
  if (!entry || entry.operation !== 'PUT') return undefined;
  try {
    const value = entry.json<CronSchedule>();
    if (typeof value !== 'object' || value === null || value.name !== entry.key) return undefined;
    if (typeof value.pattern !== 'string' || typeof value.timeZone !== 'string' || typeof value.owner !== 'string')
      return undefined;
    if (typeof value.queue !== 'string' || typeof value.since !== 'string' || Number.isNaN(Date.parse(value.since)))
      return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** The log line seed 000 shows for a scheduled cron: `Cron SendWeeklySummariesCronJob scheduled: 0 8 * * 1 (UTC).` */
export function scheduledLine(schedule: Pick<CronSchedule, 'name' | 'pattern' | 'timeZone'>): string {
  return `Cron ${schedule.name} scheduled: ${schedule.pattern} (${schedule.timeZone}).`;
}
