import { cronInWords } from './cron-in-words';

describe('cronInWords', () => {
  it.each([
    ['30 3 * * *', 'Europe/Paris', 'every day at 03:30 (Europe/Paris)'],
    ['*/10 * * * *', 'UTC', 'every 10 minutes (UTC)'],
    ['0 * * * *', 'UTC', 'every hour at minute 0 (UTC)'],
    ['0 9 * * 1-5', 'UTC', 'at 09:00 on Monday to Friday (UTC)'],
    ['0 9 * * MON-FRI', 'UTC', 'at 09:00 on Monday to Friday (UTC)'],
    ['0 0 1 * *', 'UTC', 'at 00:00 on day 1 of the month (UTC)'],
    ['15 8,20 * * *', 'UTC', 'every day at 08:15, 20:15 (UTC)'],
    ['0 */2 * * *', 'UTC', 'every 2 hours at minute 0 (UTC)'],
    ['0 9-17 * * *', 'UTC', 'at minute 0 of hours 9 to 17 (UTC)'],
    ['30 3 * 1,7 0', 'UTC', 'at 03:30 on Sunday in January and July (UTC)'],
    ['*/5 * * * * *', 'UTC', 'every 5 seconds (UTC)'],
    ['not a pattern', 'UTC', 'not a pattern (UTC)'],
  ])('reads %s (%s) as "%s"', (pattern, zone, words) => {
    expect(cronInWords(pattern, zone)).toBe(words);
  });
});
