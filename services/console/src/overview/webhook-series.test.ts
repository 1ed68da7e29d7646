import { seriesFromRows, type SeriesRow } from './webhook-series';
import { bucketEnds, chartWindow } from './windows';

const now = new Date('2026-12-01T10:00:00Z');
const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000);
const row = (fields: Partial<SeriesRow>): SeriesRow => ({
  provider: 'stripe',
  receivedAt: at(0),
  processedAt: null,
  abandonedAt: null,
  lastAttemptAt: null,
  lastError: null,
  ...fields,
});

describe('webhook charts from inbox rows', () => {
  const window = chartWindow('hour', now);

  it('counts received and processed per minute, and failures at the failed attempt', () => {
    const [stripe] = seriesFromRows(
      [
        row({ receivedAt: at(10.5), processedAt: at(10.2) }),
        row({ receivedAt: at(10.4), processedAt: at(5.5) }),
        row({ receivedAt: at(3.5), lastAttemptAt: at(2.5), lastError: 'StripeUnavailableError: 503' }),
      ],
      window,
      now,
    );
    const bucket = (minutesAgo: number) =>
      bucketEnds(window).findIndex((end) => new Date(end).getTime() > at(minutesAgo).getTime());
    expect(stripe.receivedPerMinute[bucket(10.5)]).toBe(2);
    expect(stripe.processedPerMinute[bucket(10.2)]).toBe(1);
    expect(stripe.processedPerMinute[bucket(5.5)]).toBe(1);
    expect(stripe.failures[bucket(2.5)]).toBe(1);
    expect(stripe.failures.reduce((sum, value) => sum + value, 0)).toBe(1);
  });

  it('gives the backlog and the oldest unprocessed age at the end of each bucket, including events received before the window', () => {
    const [stripe] = seriesFromRows(
      [row({ receivedAt: at(90), abandonedAt: at(30) }), row({ receivedAt: at(20), processedAt: at(10) })],
      window,
      now,
    );
    const bucket = (minutesAgo: number) =>
      bucketEnds(window).findIndex((end) => new Date(end).getTime() > at(minutesAgo).getTime());
    expect(stripe.backlog[0]).toBe(1);
    expect(stripe.backlog[bucket(15)]).toBe(2);
    expect(stripe.backlog[window.count - 1]).toBe(1);
    expect(stripe.oldestUnprocessedSeconds[window.count - 1]).toBe(90 * 60);
    expect(stripe.current).toEqual({ unprocessed: 1, setAside: 1, oldestUnprocessedSeconds: 90 * 60 });
  });

  it('keeps providers apart, and a day by quarter hours reports rates per minute', () => {
    const day = chartWindow('day', now);
    const series = seriesFromRows(
      [
        row({ provider: 'clerk', receivedAt: at(1), processedAt: at(1) }),
        row({ receivedAt: at(2), processedAt: at(2) }),
      ],
      day,
      now,
    );
    expect(series.map((entry) => entry.provider)).toEqual(['clerk', 'stripe']);
    expect(day.count).toBe(96);
    expect(series[0].receivedPerMinute.at(-1)).toBeCloseTo(1 / 15, 2);
  });
});
