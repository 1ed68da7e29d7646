import type { Inbox, InboxEventDocument } from '@berth/inbox';
import { bucketOf, type ChartWindow } from './windows';
import type { ProviderSeries } from '../api/contract';

export type { ProviderSeries };

/** Rows read at most for the charts: beyond that the charts say they are partial. */
const MAX_ROWS = 100_000;

/**
 * Per-provider charts computed from the inbox rows themselves (received, processed, last-attempt times), so they
 * cover the whole window even right after the console starts, with nothing sampled. Reads the rows that matter to
 * the window: received in it, processed in it, or still unprocessed; payloads left out.
 */
export async function webhookSeries(
  inbox: Inbox,
  window: ChartWindow,
  now: Date,
): Promise<{ providers: ProviderSeries[]; partial: boolean }> {
  const since = new Date(window.start);
  const rows = await inbox.events
    .find(
      { $or: [{ receivedAt: { $gte: since } }, { processedAt: null }, { processedAt: { $gte: since } }] },
      { projection: { provider: 1, receivedAt: 1, processedAt: 1, abandonedAt: 1, lastAttemptAt: 1, lastError: 1 } },
    )
    .limit(MAX_ROWS)
    .toArray();
  return { providers: seriesFromRows(rows, window, now), partial: rows.length >= MAX_ROWS };
}

/** The inbox fields the charts read. */
export type SeriesRow = Pick<
  InboxEventDocument,
  'provider' | 'receivedAt' | 'processedAt' | 'abandonedAt' | 'lastAttemptAt' | 'lastError'
>;

/** The per-provider charts of a window from the rows that matter to it (see {@link webhookSeries}). */
export function seriesFromRows(rows: readonly SeriesRow[], window: ChartWindow, now: Date): ProviderSeries[] {
  const minutesPerBucket = window.bucketMs / 60_000;
  const byProvider = new Map<string, ProviderSeries & { open: { received: number; processed: number }[] }>();
  const seriesOf = (provider: string) => {
    let series = byProvider.get(provider);
    if (!series) {
      const zeros = () => new Array<number>(window.count).fill(0);
      series = {
        provider,
        receivedPerMinute: zeros(),
        processedPerMinute: zeros(),
        failures: zeros(),
        backlog: zeros(),
        oldestUnprocessedSeconds: zeros(),
        current: { unprocessed: 0, setAside: 0, oldestUnprocessedSeconds: 0 },
        open: [],
      };
      byProvider.set(provider, series);
    }
    return series;
  };
  for (const row of rows) {
    const series = seriesOf(row.provider);
    const received = row.receivedAt.getTime();
    const processed = row.processedAt ? row.processedAt.getTime() : Number.POSITIVE_INFINITY;
    const receivedBucket = bucketOf(window, received);
    if (receivedBucket >= 0) series.receivedPerMinute[receivedBucket] += 1;
    const processedBucket = bucketOf(window, processed);
    if (processedBucket >= 0) series.processedPerMinute[processedBucket] += 1;
    if (!row.processedAt && row.lastError && row.lastAttemptAt) {
      const failedBucket = bucketOf(window, row.lastAttemptAt.getTime());
      if (failedBucket >= 0) series.failures[failedBucket] += 1;
    }
    series.open.push({ received, processed });
    if (!row.processedAt) {
      series.current.unprocessed += 1;
      if (row.abandonedAt) series.current.setAside += 1;
      series.current.oldestUnprocessedSeconds = Math.max(
        series.current.oldestUnprocessedSeconds,
        Math.round((now.getTime() - received) / 1000),
      );
    }
  }
  for (const series of byProvider.values()) {
    for (let index = 0; index < window.count; index += 1) {
      const at = Math.min(window.start + (index + 1) * window.bucketMs, now.getTime());
      let backlog = 0;
      let oldest = Number.POSITIVE_INFINITY;
      for (const row of series.open) {
        if (row.received <= at && row.processed > at) {
          backlog += 1;
          if (row.received < oldest) oldest = row.received;
        }
      }
      series.backlog[index] = backlog;
      series.oldestUnprocessedSeconds[index] = backlog > 0 ? Math.round((at - oldest) / 1000) : 0;
      series.receivedPerMinute[index] = round(series.receivedPerMinute[index] / minutesPerBucket);
      series.processedPerMinute[index] = round(series.processedPerMinute[index] / minutesPerBucket);
    }
  }
  return [...byProvider.values()]
    .map(({ open: _open, ...series }) => series)
    .sort((a, b) => a.provider.localeCompare(b.provider));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
