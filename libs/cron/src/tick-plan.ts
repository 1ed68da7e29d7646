import type { CompiledCron } from './pattern';
import { latestTickAtOrBefore, nextTickAfter, ticksBetween } from './tick-schedule';

/** What {@link planDueTicks} needs to know about one schedule at one moment. */
export interface DueTicksInput {
  cron: CompiledCron;
  /**
   * Ticks strictly after this instant are candidates: the schedule's last emitted tick, or, when none was emitted
   * under the current pattern, the moment the pattern was registered (see {@link scheduleCursor}).
   */
  cursor: Date;
  now: Date;
  /**
   * How late a tick may be and still be emitted on its own. A leader handover (lease TTL plus the time to notice)
   * or a slow pass delays ticks by less than this; an outage of every scheduler delays them by more. The scheduler
   * uses 2 × lease TTL + tick interval.
   */
  graceMs: number;
}

/** The ticks to emit now, oldest first, and the ticks folded into the last one when the scheduler was down. */
export interface DueTicks {
  ticks: Date[];
  /** Set when the oldest due tick was older than the grace: the range of ticks folded into `ticks[0]`. */
  collapsed?: { first: Date; latest: Date };
  /** The next tick after the last due one (what to wake up for), if the pattern fires again. */
  next?: Date;
}

/**
 * Decides which ticks a leader emits now. Berth's policies:
 *
 * - **Late but within the grace** (a leader handover, a slow publish): every due tick is emitted, oldest first,
 *   each with its own `scheduledAt`. A failover therefore loses no tick and emits none twice (the `Nats-Msg-Id`
 *   of a tick is the same whoever emits it).
 * - **Missed while no scheduler ran** (the oldest due tick is older than the grace): **catch up once**: only the
 *   latest due tick is emitted, not a burst of every missed one. Crons should process "everything since the last
 *   success", so one late run covers the missed ones.
 * - **First registration / changed pattern**: the cursor is the registration time, so nothing before it is
 *   backfilled (a daily 03:30 cron registered at 10:00 first runs tomorrow at 03:30).
 */
export function planDueTicks(input: DueTicksInput): DueTicks {
  const { cron, cursor, now, graceMs } = input;
  const first = nextTickAfter(cron, cursor);
  if (first === undefined || first > now) return { ticks: [], next: first };
  if (now.getTime() - first.getTime() <= graceMs) {
    const ticks = ticksBetween(cron, cursor, now);
    return { ticks, next: nextTickAfter(cron, ticks[ticks.length - 1]) };
  }
  const latest = latestTickAtOrBefore(cron, now, cursor) ?? first;
  return {
    ticks: [latest],
    collapsed: latest.getTime() === first.getTime() ? undefined : { first, latest },
    next: nextTickAfter(cron, latest),
  };
}

/**
 * Where a schedule's tick search starts: its last emitted tick, unless the pattern or zone changed (or the schedule
 * was first registered) after it, in which case the registration time, so that no tick before it is backfilled.
 */
export function scheduleCursor(since: Date, lastTick: Date | undefined): Date {
  return lastTick !== undefined && lastTick > since ? lastTick : since;
}
