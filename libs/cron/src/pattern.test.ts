import { compileCronPattern, CronPatternError, validateCronPattern } from './index';

describe('cron patterns', () => {
  it('accepts 5 fields, and 6 with seconds first', () => {
    expect(compileCronPattern('*/10 * * * *')).toMatchObject({
      pattern: '*/10 * * * *',
      timeZone: 'UTC',
      hasSeconds: false,
      everyHour: true,
    });
    expect(compileCronPattern(' 30 3 * * * ', 'Europe/Berlin')).toMatchObject({
      pattern: '30 3 * * *',
      timeZone: 'Europe/Berlin',
      everyHour: false,
    });
    expect(compileCronPattern('*/5 * * * * *')).toMatchObject({ hasSeconds: true, everyHour: true });
    expect(compileCronPattern('0 8 * * mon-fri').everyHour).toBe(false);
  });

  it.each([
    ['* * * *', /expected 5 fields/],
    ['* * * * * * *', /expected 5 fields/],
    ['@daily', /aliases/],
    ['61 * * * *', /out of range/],
    ['a b c d e', /Unknown alias/],
    ['0 0 30 2 *', /never fires/],
    ['', /expected 5 fields/],
  ])('refuses %j', (pattern, reason) => {
    expect(() => compileCronPattern(pattern)).toThrow(CronPatternError);
    expect(validateCronPattern(pattern)).toEqual({ valid: false, reason: expect.stringMatching(reason) });
  });

  it('refuses an unknown time zone', () => {
    expect(validateCronPattern('0 3 * * *', 'Mars/Olympus_Mons')).toEqual({
      valid: false,
      reason: expect.stringMatching(/unknown time zone/),
    });
    expect(validateCronPattern('0 3 * * *', ' UTC')).toMatchObject({ valid: false });
    expect(validateCronPattern('0 3 * * *', 'America/New_York')).toEqual({ valid: true });
  });

  it('computes wall-clock ticks strictly after a time', () => {
    const cron = compileCronPattern('*/10 * * * *');
    expect(new Date(cron.nextWallAfter(Date.parse('2025-01-01T00:10:00Z'))!).toISOString()).toBe(
      '2025-01-01T00:20:00.000Z',
    );
    expect(new Date(cron.nextWallAfter(Date.parse('2025-01-01T00:09:59.500Z'))!).toISOString()).toBe(
      '2025-01-01T00:10:00.000Z',
    );
  });
});
