import { isoWeek } from './iso-week';

describe('isoWeek', () => {
  it.each([
    ['2026-11-30T08:00:00Z', '2026-W49'],
    ['2026-01-01T00:00:00Z', '2026-W01'],
    ['2027-01-01T12:00:00Z', '2026-W53'],
    ['2024-12-30T00:00:00Z', '2025-W01'],
    ['2026-03-01T23:59:59Z', '2026-W09'],
  ])('%s is in %s', (date, week) => {
    expect(isoWeek(new Date(date))).toBe(week);
  });
});
