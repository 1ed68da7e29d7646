import { compileCronPattern, planDueTicks, scheduleCursor } from './index';

const everySecond = compileCronPattern('* * * * * *');
const everyTenMinutes = compileCronPattern('*/10 * * * *');
const iso = (dates: Date[]): string[] => dates.map((date) => date.toISOString());

describe('planDueTicks', () => {
  it('emits nothing before the next tick, and says when that is', () => {
    const plan = planDueTicks({
      cron: everyTenMinutes,
      cursor: new Date('2025-01-01T10:00:00Z'),
      now: new Date('2025-01-01T10:09:59.999Z'),
      graceMs: 7000,
    });
    expect(plan.ticks).toEqual([]);
    expect(plan.next?.toISOString()).toBe('2025-01-01T10:10:00.000Z');
  });

  it('emits a tick that is due, and the next one to wait for', () => {
    const plan = planDueTicks({
      cron: everyTenMinutes,
      cursor: new Date('2025-01-01T10:00:00Z'),
      now: new Date('2025-01-01T10:10:00.020Z'),
      graceMs: 7000,
    });
    expect(iso(plan.ticks)).toEqual(['2025-01-01T10:10:00.000Z']);
    expect(plan.collapsed).toBeUndefined();
    expect(plan.next?.toISOString()).toBe('2025-01-01T10:20:00.000Z');
  });

  it('late within the grace (a leader handover): emits every late tick, oldest first', () => {
    const plan = planDueTicks({
      cron: everySecond,
      cursor: new Date('2025-01-01T10:00:00Z'),
      now: new Date('2025-01-01T10:00:04.300Z'),
      graceMs: 7000,
    });
    expect(iso(plan.ticks)).toEqual([
      '2025-01-01T10:00:01.000Z',
      '2025-01-01T10:00:02.000Z',
      '2025-01-01T10:00:03.000Z',
      '2025-01-01T10:00:04.000Z',
    ]);
    expect(plan.collapsed).toBeUndefined();
  });

  it('missed while no scheduler ran (older than the grace): catches up once, with the latest missed tick', () => {
    const plan = planDueTicks({
      cron: everyTenMinutes,
      cursor: new Date('2025-01-01T10:00:00Z'),
      now: new Date('2025-01-01T13:05:00Z'),
      graceMs: 21_000,
    });
    expect(iso(plan.ticks)).toEqual(['2025-01-01T13:00:00.000Z']);
    expect(plan.collapsed).toEqual({
      first: new Date('2025-01-01T10:10:00Z'),
      latest: new Date('2025-01-01T13:00:00Z'),
    });
    expect(plan.next?.toISOString()).toBe('2025-01-01T13:10:00.000Z');

    const seconds = planDueTicks({
      cron: everySecond,
      cursor: new Date('2025-01-01T10:00:00Z'),
      now: new Date('2025-01-02T10:00:00.500Z'),
      graceMs: 7000,
    });
    expect(iso(seconds.ticks)).toEqual(['2025-01-02T10:00:00.000Z']);
  });

  it('one old missed tick is just emitted late', () => {
    const plan = planDueTicks({
      cron: compileCronPattern('30 3 * * *'),
      cursor: new Date('2025-01-01T03:30:00Z'),
      now: new Date('2025-01-02T09:00:00Z'),
      graceMs: 21_000,
    });
    expect(iso(plan.ticks)).toEqual(['2025-01-02T03:30:00.000Z']);
    expect(plan.collapsed).toBeUndefined();
  });

  it('first registration: nothing before the registration time is backfilled', () => {
    const registeredAt = new Date('2025-01-01T10:00:00Z');
    const cursor = scheduleCursor(registeredAt, undefined);
    const plan = planDueTicks({
      cron: compileCronPattern('30 3 * * *'),
      cursor,
      now: new Date('2025-01-01T10:00:05Z'),
      graceMs: 21_000,
    });
    expect(plan.ticks).toEqual([]);
    expect(plan.next?.toISOString()).toBe('2025-01-02T03:30:00.000Z');
  });

  it('the cursor is the last tick, unless the pattern was (re)registered after it', () => {
    const since = new Date('2025-01-01T10:00:00Z');
    expect(scheduleCursor(since, new Date('2025-01-01T11:00:00Z'))).toEqual(new Date('2025-01-01T11:00:00Z'));
    expect(scheduleCursor(since, new Date('2025-01-01T09:00:00Z'))).toEqual(since);
  });

  it('DST with a fixed clock: the Berlin fall-back night runs `30 2 * * *` once', () => {
    const cron = compileCronPattern('30 2 * * *', 'Europe/Berlin');
    const first = planDueTicks({
      cron,
      cursor: new Date('2025-10-25T12:00:00Z'),
      now: new Date('2025-10-26T00:30:00.010Z'),
      graceMs: 21_000,
    });
    expect(iso(first.ticks)).toEqual(['2025-10-26T00:30:00.000Z']);
    const second = planDueTicks({
      cron,
      cursor: first.ticks[0],
      now: new Date('2025-10-26T01:30:00.010Z'),
      graceMs: 21_000,
    });
    expect(second.ticks).toEqual([]);
    expect(second.next?.toISOString()).toBe('2025-10-27T01:30:00.000Z');
  });
});
