import type { CompiledCron } from './pattern';
import { findOffsetChange, zoneOffsetMs } from './zone-offset';

/** A zone's offsets change at most once a day, and a repeated hour is at most 2 h long. */
const LOOKBACK_MS = 24 * 60 * 60 * 1000;
/** Upper bound on wall-clock ticks examined for one answer (a per-second cron skipping a repeated hour: 3,600). */
const MAX_STEPS = 100_000;

/**
 * The first tick strictly after `after`, in the cron's zone, or undefined if the pattern never fires again.
 *
 * The `cron` package finds the wall-clock times that match the pattern; this function turns them into instants
 * with Berth's daylight-saving policy (the `cron` package's own zone handling is inconsistent there: measured with
 * cron 4.4, `0 3 * * *` in Europe/Berlin fires twice on the fall-back day, and a skipped `30 2 * * *` runs at 03:00
 * in Berlin but at 03:30 in Sydney):
 *
 * - **Skipped local time** (spring forward, e.g. 02:00-02:59 in Berlin on the last Sunday of March): a cron that
 *   names its hours (`30 2 * * *`, `*\/20 2 * * *`) runs **once, at the instant the clocks jump** (03:00 local);
 *   a cron whose hour field is `*` (hourly, every N minutes) simply has no tick in the missing hour, since no real
 *   time passed.
 * - **Repeated local time** (fall back, 02:00-02:59 happens twice in Berlin on the last Sunday of October): a cron
 *   that names its hours runs **once, at the first occurrence** (`30 2 * * *` → 02:30 CEST, not again at 02:30 CET);
 *   a cron whose hour field is `*` runs in both occurrences, since each is a real hour (`*\/10 * * * *` keeps running
 *   every 10 minutes).
 */
export function nextTickAfter(cron: CompiledCron, after: Date): Date | undefined {
  const next = nextTickAfterMs(cron, after.getTime());
  return next === undefined ? undefined : new Date(next);
}

function nextTickAfterMs(cron: CompiledCron, after: number): number | undefined {
  const zone = cron.timeZone;
  let low = after;
  let offset = zoneOffsetMs(zone, after);
  let segment: { start: number; previousOffset: number } | undefined;
  const earlier = zoneOffsetMs(zone, after - LOOKBACK_MS);
  if (earlier !== offset) {
    const start = findOffsetChange(zone, after - LOOKBACK_MS, after, earlier);
    if (start !== undefined) segment = { start, previousOffset: earlier };
  }
  for (let step = 0; step < MAX_STEPS; step++) {
    const wall = cron.nextWallAfter(low + offset);
    if (wall === undefined) return undefined;
    const candidate = wall - offset;
    const change = findOffsetChange(zone, low, candidate, offset);
    if (change === undefined) {
      // Inside a stretch of constant offset: `candidate` is a real instant showing `wall` on the clocks.
      const secondOccurrence =
        segment !== undefined && segment.previousOffset > offset && wall < segment.start + segment.previousOffset;
      if (!secondOccurrence || cron.everyHour) return candidate;
      low = candidate;
      continue;
    }
    const nextOffset = zoneOffsetMs(zone, change);
    if (nextOffset > offset && !cron.everyHour && change > after) {
      // Clocks jump forward at `change`: wall times [change+offset, change+nextOffset) never happen.
      const skipped = cron.nextWallAfter(change + offset - 1);
      if (skipped !== undefined && skipped < change + nextOffset) return change;
    }
    segment = { start: change, previousOffset: offset };
    offset = nextOffset;
    low = change - 1;
  }
  throw new Error(
    `Cron ${cron.pattern} (${cron.timeZone}): no tick found within ${MAX_STEPS} steps after ${new Date(after).toISOString()}`,
  );
}

/** Every tick in `(after, until]`, oldest first, at most `limit` of them. */
export function ticksBetween(cron: CompiledCron, after: Date, until: Date, limit = 10_000): Date[] {
  const ticks: Date[] = [];
  let cursor = after.getTime();
  const end = until.getTime();
  while (ticks.length < limit) {
    const next = nextTickAfterMs(cron, cursor);
    if (next === undefined || next > end) break;
    ticks.push(new Date(next));
    cursor = next;
  }
  return ticks;
}

/**
 * The latest tick in `(notBefore, at]`, or undefined when there is none. Searches backwards from `at` in doubling
 * windows, so a per-second cron after a day-long outage costs a few steps, not 86,400.
 */
export function latestTickAtOrBefore(cron: CompiledCron, at: Date, notBefore: Date): Date | undefined {
  const end = at.getTime();
  const floor = notBefore.getTime();
  for (let span = 1000; ; span *= 2) {
    const start = Math.max(floor, end - span);
    let latest = nextTickAfterMs(cron, start);
    if (latest !== undefined && latest <= end) {
      for (
        let next = nextTickAfterMs(cron, latest);
        next !== undefined && next <= end;
        next = nextTickAfterMs(cron, next)
      )
        latest = next;
      return new Date(latest);
    }
    if (start === floor) return undefined;
  }
}
