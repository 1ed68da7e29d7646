import type { JetStreamClient } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { BerthLogger } from '@berth/logger';
import { openCronBuckets, type CronBuckets } from './buckets';
import { systemClock, type Clock } from '@berth/contract';
import { compareAndSetKv, isWrongLastSequence } from '@berth/messaging';
import { DEFAULT_TIME_ZONE } from './pattern';
import {
  CRON_QUEUE,
  definitionProblems,
  scheduledLine,
  scheduleFromEntry,
  type CronDefinition,
  type CronSchedule,
} from './schedule';

/** Where the cron buckets are: already open, or opened from a JetStream connection. */
export type CronStoreSource = { buckets: CronBuckets } | { messaging: { js: JetStreamClient } };

/** Resolves a {@link CronStoreSource} to open buckets. */
export async function resolveBuckets(source: CronStoreSource): Promise<CronBuckets> {
  return 'buckets' in source ? source.buckets : openCronBuckets(source.messaging.js);
}

/** Options for {@link registerCronSchedules}. */
export type RegisterCronSchedulesOptions = CronStoreSource & {
  /** The service registering (its name); it owns these schedules and only it removes them. */
  owner: string;
  /** Every cron this service defines now (an empty list removes all of its schedules). */
  definitions: readonly CronDefinition[];
  logger: BerthLogger;
  clock?: Clock;
};

/** What {@link registerCronSchedules} did, by cron name. */
export interface CronRegistration {
  added: string[];
  updated: string[];
  unchanged: string[];
  removed: string[];
}

/** A definition list that cannot be registered; nothing was written. */
export class CronDefinitionError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid cron definitions:\n  - ${problems.join('\n  - ')}`);
    this.name = 'CronDefinitionError';
  }
}

/**
 * Registers the crons a service defines, at its start, so that a deploy changes the schedule with no command:
 *
 * - each definition is written to the schedules bucket only if it is new or changed (compare-and-set, so replicas
 *   starting together do not fight); a changed pattern or zone restarts the schedule from now (no backfill);
 * - the schedules this owner registered earlier and no longer defines are deleted (their last tick is the
 *   scheduler's to delete: the owner's NATS user may not write the last-tick bucket, see deploy/nats/auth.conf).
 *
 * Every definition is validated first (name, 5- or 6-field pattern, IANA zone); one invalid definition fails the
 * whole call with {@link CronDefinitionError} before anything is written. Logs `Cron <Name> scheduled: <pattern>
 * (<zone>).` for each definition, as seed 000's worker does. A name defined by two owners belongs to the last one
 * that registered it (logged as a warning).
 */
export async function registerCronSchedules(options: RegisterCronSchedulesOptions): Promise<CronRegistration> {
  const { owner, definitions, logger } = options;
  const clock = options.clock ?? systemClock;
  const problems = definitions.flatMap(definitionProblems);
  const names = definitions.map((definition) => definition.name);
  for (const name of new Set(names))
    if (names.indexOf(name) !== names.lastIndexOf(name)) problems.push(`${name} is defined twice`);
  if (!owner) problems.push('owner must name the registering service');
  if (problems.length > 0) throw new CronDefinitionError(problems);

  const buckets = await resolveBuckets(options);
  const result: CronRegistration = { added: [], updated: [], unchanged: [], removed: [] };
  for (const definition of definitions) {
    const change = await putDefinition(buckets.schedules, owner, definition, clock, logger);
    result[change].push(definition.name);
    const stored = {
      name: definition.name,
      pattern: definition.pattern.trim(),
      timeZone: definition.timeZone ?? DEFAULT_TIME_ZONE,
    };
    logger.info(
      { cron: definition.name, pattern: stored.pattern, timeZone: stored.timeZone, owner, change },
      scheduledLine(stored),
    );
  }
  const defined = new Set(names);
  for (const key of await listKeys(buckets.schedules)) {
    if (defined.has(key)) continue;
    const entry = await buckets.schedules.get(key);
    const schedule = scheduleFromEntry(entry);
    if (!schedule || schedule.owner !== owner || !entry) continue;
    try {
      await buckets.schedules.delete(key, { previousSeq: entry.revision });
      result.removed.push(key);
      logger.info({ cron: key, owner }, `Cron ${key} unscheduled: ${owner} no longer defines it.`);
    } catch (error) {
      if (!isWrongLastSequence(error)) throw error;
    }
  }
  return result;
}

type Change = 'added' | 'updated' | 'unchanged';

async function putDefinition(
  kv: KV,
  owner: string,
  definition: CronDefinition,
  clock: Clock,
  logger: BerthLogger,
): Promise<Change> {
  const pattern = definition.pattern.trim();
  const timeZone = definition.timeZone ?? DEFAULT_TIME_ZONE;
  const queue = definition.queue ?? CRON_QUEUE;
  return compareAndSetKv<CronSchedule, Change>(
    kv,
    definition.name,
    ({ value: current }) => {
      if (
        current &&
        current.pattern === pattern &&
        current.timeZone === timeZone &&
        current.queue === queue &&
        current.owner === owner
      )
        return { result: 'unchanged' };
      const now = clock.now().toISOString();
      const sameTimes = current !== undefined && current.pattern === pattern && current.timeZone === timeZone;
      const next: CronSchedule = {
        name: definition.name,
        pattern,
        timeZone,
        queue,
        owner,
        since: sameTimes ? current.since : now,
        updatedAt: now,
      };
      if (current && current.owner !== owner) {
        logger.warn(
          { cron: definition.name, previousOwner: current.owner, owner },
          `Cron ${definition.name} was registered by ${current.owner}; ${owner} registers it now`,
        );
      }
      return { write: { put: next }, result: current ? 'updated' : 'added' };
    },
    { decode: scheduleFromEntry, rounds: 6, clock, what: `The schedule of cron ${definition.name}` },
  );
}

/** Every key of a bucket (empty for an empty bucket). */
export async function listKeys(kv: KV): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of await kv.keys()) keys.push(key);
  return keys;
}

/** Every valid registered schedule with its revision, by name. Entries that are not valid schedules are skipped. */
export async function readCronSchedules(kv: KV): Promise<Map<string, { schedule: CronSchedule; revision: number }>> {
  const schedules = new Map<string, { schedule: CronSchedule; revision: number }>();
  for (const key of await listKeys(kv)) {
    const entry = await kv.get(key);
    const schedule = scheduleFromEntry(entry);
    if (schedule && entry) schedules.set(key, { schedule, revision: entry.revision });
  }
  return schedules;
}
