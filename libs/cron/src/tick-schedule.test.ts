import { CronTime } from 'cron';
import { compileCronPattern, latestTickAtOrBefore, nextTickAfter, ticksBetween } from './index';

const iso = (dates: Date[]): string[] => dates.map((date) => date.toISOString());
const between = (pattern: string, zone: string, from: string, to: string): string[] =>
  iso(ticksBetween(compileCronPattern(pattern, zone), new Date(from), new Date(to)));

describe('ticks in UTC', () => {
  it('lists the ticks strictly after the start and up to the end', () => {
    expect(between('* * * * * *', 'UTC', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:03.000Z')).toEqual([
      '2025-01-01T00:00:01.000Z',
      '2025-01-01T00:00:02.000Z',
      '2025-01-01T00:00:03.000Z',
    ]);
    expect(between('*/10 * * * *', 'UTC', '2025-01-01T00:05:00.000Z', '2025-01-01T00:30:00.000Z')).toEqual([
      '2025-01-01T00:10:00.000Z',
      '2025-01-01T00:20:00.000Z',
      '2025-01-01T00:30:00.000Z',
    ]);
  });

  it('finds the latest tick before a time without walking every tick', () => {
    const everySecond = compileCronPattern('* * * * * *');
    expect(
      latestTickAtOrBefore(
        everySecond,
        new Date('2025-01-02T00:00:00.700Z'),
        new Date('2025-01-01T00:00:00Z'),
      )?.toISOString(),
    ).toBe('2025-01-02T00:00:00.000Z');
    const daily = compileCronPattern('30 3 * * *');
    expect(
      latestTickAtOrBefore(daily, new Date('2025-01-05T12:00:00Z'), new Date('2025-01-01T00:00:00Z'))?.toISOString(),
    ).toBe('2025-01-05T03:30:00.000Z');
    expect(
      latestTickAtOrBefore(daily, new Date('2025-01-01T03:00:00Z'), new Date('2025-01-01T00:00:00Z')),
    ).toBeUndefined();
  });
});

describe('daylight saving time (Europe/Berlin, 2025: clocks jump 02:00→03:00 on 30 March, 03:00→02:00 on 26 October)', () => {
  it('skipped hour: `30 2 * * *` runs once on the spring-forward day, at 03:00 CEST, the instant the clocks jump', () => {
    expect(between('30 2 * * *', 'Europe/Berlin', '2025-03-28T12:00:00Z', '2025-03-31T12:00:00Z')).toEqual([
      '2025-03-29T01:30:00.000Z', // 02:30 CET
      '2025-03-30T01:00:00.000Z', // 03:00 CEST: 02:30 does not exist that day
      '2025-03-31T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('repeated hour: `30 2 * * *` runs once on the fall-back day, at the first 02:30 (CEST)', () => {
    expect(between('30 2 * * *', 'Europe/Berlin', '2025-10-24T12:00:00Z', '2025-10-27T12:00:00Z')).toEqual([
      '2025-10-25T00:30:00.000Z', // 02:30 CEST
      '2025-10-26T00:30:00.000Z', // 02:30 CEST, the first of the two; not again at 01:30Z (02:30 CET)
      '2025-10-27T01:30:00.000Z', // 02:30 CET
    ]);
  });

  it('`0 3 * * *` runs once on the fall-back day, where the cron package alone fires twice', () => {
    expect(between('0 3 * * *', 'Europe/Berlin', '2025-10-25T12:00:00Z', '2025-10-26T12:00:00Z')).toEqual([
      '2025-10-26T02:00:00.000Z',
    ]);
    // What cron 4.4's own zone handling gives (why Berlin maps wall-clock ticks itself): also 01:00Z, shown as 02:00 CET.
    const raw = new CronTime('0 3 * * *', 'Europe/Berlin');
    const first = raw.getNextDateFrom(new Date('2025-10-25T12:00:00Z'), 'Europe/Berlin');
    expect(first.toUTC().toISO()).toBe('2025-10-26T01:00:00.000Z');
  });

  it('crons whose hour field is `*` follow elapsed time: both repeated hours run, the skipped hour has no tick', () => {
    expect(between('*/30 * * * *', 'Europe/Berlin', '2025-10-25T23:45:00Z', '2025-10-26T02:00:00Z')).toEqual([
      '2025-10-26T00:00:00.000Z', // 02:00 CEST
      '2025-10-26T00:30:00.000Z', // 02:30 CEST
      '2025-10-26T01:00:00.000Z', // 02:00 CET
      '2025-10-26T01:30:00.000Z', // 02:30 CET
      '2025-10-26T02:00:00.000Z', // 03:00 CET
    ]);
    expect(between('30 * * * *', 'Europe/Berlin', '2025-03-29T23:45:00Z', '2025-03-30T02:00:00Z')).toEqual([
      '2025-03-30T00:30:00.000Z', // 01:30 CET
      '2025-03-30T01:30:00.000Z', // 03:30 CEST: an hour later, no "02:30"
    ]);
  });

  it('several skipped times of one cron run once at the jump', () => {
    expect(between('*/20 2 * * *', 'Europe/Berlin', '2025-03-29T12:00:00Z', '2025-03-30T12:00:00Z')).toEqual([
      '2025-03-30T01:00:00.000Z',
    ]);
  });

  it('continues correctly from a tick inside the repeated hour', () => {
    const cron = compileCronPattern('*/30 * * * *', 'Europe/Berlin');
    expect(nextTickAfter(cron, new Date('2025-10-26T00:30:00Z'))?.toISOString()).toBe('2025-10-26T01:00:00.000Z');
    expect(nextTickAfter(cron, new Date('2025-10-26T01:00:00Z'))?.toISOString()).toBe('2025-10-26T01:30:00.000Z');
    const daily = compileCronPattern('*/10 2 * * *', 'Europe/Berlin');
    expect(nextTickAfter(daily, new Date('2025-10-26T00:50:00Z'))?.toISOString()).toBe('2025-10-27T01:00:00.000Z');
    expect(nextTickAfter(daily, new Date('2025-10-26T01:20:00Z'))?.toISOString()).toBe('2025-10-27T01:00:00.000Z');
  });

  it('same policy in the southern hemisphere (Sydney jumps 02:00→03:00 on 5 October 2025), where the cron package runs at 03:30', () => {
    expect(between('30 2 * * *', 'Australia/Sydney', '2025-10-04T00:00:00Z', '2025-10-05T12:00:00Z')).toEqual([
      '2025-10-04T16:00:00.000Z', // 5 October 03:00 AEDT, the instant of the jump
    ]);
  });
});

type WallFields = {
  second: number;
  minute: number;
  hour: number;
  day: number;
  month: number;
  weekday: number;
  ms: number;
};
const wallCache = new Map<string, WallFields>();

/** The wall-clock fields of an instant in a zone, from Intl (independent of the code under test); memoised. */
function wall(zone: string, ms: number): WallFields {
  const key = `${zone}@${ms}`;
  let fields = wallCache.get(key);
  if (!fields) {
    fields = computeWall(zone, ms);
    wallCache.set(key, fields);
  }
  return fields;
}

function computeWall(zone: string, ms: number): WallFields {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    })
      .formatToParts(new Date(ms))
      .map((part) => [part.type, part.value]),
  );
  const [year, month, day, hour, minute, second] = ['year', 'month', 'day', 'hour', 'minute', 'second'].map((key) =>
    Number(parts[key]),
  );
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday);
  return { second, minute, hour, day, month, weekday, ms: Date.UTC(year, month - 1, day, hour, minute, second) };
}

/** The policy, brute force: every instant whose wall clock matches (first occurrence, or both when hour is `*`), plus the jump instant for skipped matches. */
function referenceTicks(pattern: string, zone: string, from: number, to: number): string[] {
  const units = new CronTime(pattern, 'UTC')
    .toJSON()
    .map((unit) => (unit === '*' ? undefined : new Set(unit.split(',').map(Number))));
  const [seconds, minutes, hours, days, months, weekdays] = units;
  const everyHour = hours === undefined;
  const has = (set: Set<number> | undefined, value: number): boolean => set === undefined || set.has(value);
  const matches = (f: ReturnType<typeof wall>): boolean =>
    has(seconds, f.second) &&
    has(minutes, f.minute) &&
    has(hours, f.hour) &&
    has(months, f.month) &&
    (days && weekdays ? days.has(f.day) || weekdays.has(f.weekday) : has(days, f.day) && has(weekdays, f.weekday));
  const step = pattern.trim().split(/\s+/).length === 6 ? 1000 : 60_000;
  const ticks = new Set<number>();
  let previous = wall(zone, from - step);
  for (let u = from; u <= to; u += step) {
    const f = wall(zone, u);
    const jump = f.ms - previous.ms - step;
    if (jump > 0 && !everyHour) {
      for (let skipped = previous.ms + step; skipped < f.ms; skipped += step) {
        const date = new Date(skipped);
        const sf = {
          second: date.getUTCSeconds(),
          minute: date.getUTCMinutes(),
          hour: date.getUTCHours(),
          day: date.getUTCDate(),
          month: date.getUTCMonth() + 1,
          weekday: date.getUTCDay(),
          ms: skipped,
        };
        if (matches(sf)) ticks.add(u);
      }
    }
    if (matches(f)) {
      const repeat = [30, 60, 120].some((minutesBack) => wall(zone, u - minutesBack * 60_000).ms === f.ms);
      if (!repeat || everyHour) ticks.add(u);
    }
    previous = f;
  }
  return [...ticks].sort((a, b) => a - b).map((ms) => new Date(ms).toISOString());
}

describe('DST policy against a brute-force reference', () => {
  const windows: [string, string, string][] = [
    ['Europe/Berlin', '2025-03-29T18:00:00Z', '2025-03-30T06:00:00Z'],
    ['Europe/Berlin', '2025-10-25T18:00:00Z', '2025-10-26T06:00:00Z'],
    ['America/New_York', '2025-03-09T02:00:00Z', '2025-03-09T12:00:00Z'],
    ['America/New_York', '2025-11-02T02:00:00Z', '2025-11-02T12:00:00Z'],
    ['Australia/Sydney', '2025-10-04T10:00:00Z', '2025-10-04T22:00:00Z'],
    ['Australia/Sydney', '2025-04-05T10:00:00Z', '2025-04-05T22:00:00Z'],
    ['Australia/Lord_Howe', '2025-10-04T10:00:00Z', '2025-10-04T22:00:00Z'],
    ['Australia/Lord_Howe', '2025-04-05T10:00:00Z', '2025-04-05T22:00:00Z'],
  ];
  const patterns = [
    '30 2 * * *',
    '0 3 * * *',
    '0 2 * * *',
    '30 * * * *',
    '*/20 2 * * *',
    '*/15 * * * *',
    '0 */2 * * *',
    '15 2,3 * * *',
    '0 1-4 * * *',
    '45 1 * * *',
    '0 0 * * 0',
  ];

  it.each(windows)('%s from %s: every pattern matches the reference', (zone, from, to) => {
    for (const pattern of patterns) {
      const expected = referenceTicks(pattern, zone, Date.parse(from), Date.parse(to));
      expect({ pattern, ticks: between(pattern, zone, new Date(Date.parse(from) - 1).toISOString(), to) }).toEqual({
        pattern,
        ticks: expected,
      });
    }
  });

  it('6-field patterns around both Berlin changes', () => {
    for (const [from, to] of [
      ['2025-03-30T00:40:00Z', '2025-03-30T01:20:00Z'],
      ['2025-10-26T00:40:00Z', '2025-10-26T01:20:00Z'],
    ]) {
      for (const pattern of ['*/7 * * * * *', '*/30 * 2 * * *', '0 59 1,2 * * *']) {
        const expected = referenceTicks(pattern, 'Europe/Berlin', Date.parse(from), Date.parse(to));
        expect({
          pattern,
          ticks: between(pattern, 'Europe/Berlin', new Date(Date.parse(from) - 1).toISOString(), to),
        }).toEqual({ pattern, ticks: expected });
      }
    }
  });
});
