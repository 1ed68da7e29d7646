/** UTC offsets of IANA zones, from the runtime's Intl data (no extra time-zone library). */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The zone's UTC offset at an instant, in ms (Europe/Berlin in summer: 7,200,000). */
export function zoneOffsetMs(timeZone: string, instantMs: number): number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return 0;
  const fields: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const wall = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second);
  return wall - (instantMs - (((instantMs % 1000) + 1000) % 1000));
}

/** Zones change offset at most once in this span (DST rules are months apart), so probing at this step misses none. */
const PROBE_STEP_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The first instant in `(after, until]` at which the zone's offset is no longer `offset`, or undefined when it
 * stays `offset` throughout. Probes weekly, then bisects to the millisecond.
 */
export function findOffsetChange(timeZone: string, after: number, until: number, offset: number): number | undefined {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return undefined;
  let low = after;
  while (low < until) {
    const high = Math.min(low + PROBE_STEP_MS, until);
    if (zoneOffsetMs(timeZone, high) !== offset) {
      let same = low;
      let changed = high;
      while (changed - same > 1) {
        const middle = same + Math.floor((changed - same) / 2);
        if (zoneOffsetMs(timeZone, middle) !== offset) changed = middle;
        else same = middle;
      }
      return changed;
    }
    low = high;
  }
  return undefined;
}
