import { systemClock, type Clock } from '@berth/contract';
import { lastTickFromEntry } from './last-tick';
import { readLease } from './lease';
import { compileCronPattern } from './pattern';
import { readCronSchedules, resolveBuckets, type CronStoreSource } from './registry';
import { nextTickAfter } from './tick-schedule';

/** One row of `berth crons list`. */
export interface CronListRow {
  name: string;
  pattern: string;
  timeZone: string;
  queue: string;
  owner: string;
  /** The last tick emitted (its scheduled time), null if none yet. */
  lastTick: Date | null;
  /** The next tick after now, null if the pattern never fires again. */
  nextTick: Date | null;
  /** The scheduler instance holding the lease now, null if none does (every scheduler down, or a handover). */
  leader: string | null;
  /** Set when the stored pattern cannot be computed (written by something other than `registerCronSchedules`). */
  error?: string;
}

/** Every registered schedule with its last and next tick and the current leader, sorted by name. */
export async function listCrons(options: CronStoreSource & { clock?: Clock }): Promise<CronListRow[]> {
  const buckets = await resolveBuckets(options);
  const now = (options.clock ?? systemClock).now();
  const [schedules, lease] = await Promise.all([readCronSchedules(buckets.schedules), readLease(buckets.lease)]);
  const rows: CronListRow[] = [];
  for (const { schedule } of schedules.values()) {
    const last = lastTickFromEntry(await buckets.lastTicks.get(schedule.name));
    const row: CronListRow = {
      name: schedule.name,
      pattern: schedule.pattern,
      timeZone: schedule.timeZone,
      queue: schedule.queue,
      owner: schedule.owner,
      lastTick: last ? new Date(last.tick) : null,
      nextTick: null,
      leader: lease?.holder ?? null,
    };
    try {
      row.nextTick = nextTickAfter(compileCronPattern(schedule.pattern, schedule.timeZone), now) ?? null;
    } catch (error) {
      row.error = (error as Error).message;
    }
    rows.push(row);
  }
  return rows.sort((a, b) => a.name.localeCompare(b.name));
}
