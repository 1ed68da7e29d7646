/** A chart's time range: the last hour by the minute, or the last day by the quarter hour. */
export type WindowName = 'hour' | 'day';

/** The buckets of a window ending at `now`: `count` buckets of `bucketMs`, the last one ending at `now`. */
export interface ChartWindow {
  name: WindowName;
  bucketMs: number;
  count: number;
  start: number;
  end: number;
}

/** The window of that name ending now. */
export function chartWindow(name: WindowName, now: Date): ChartWindow {
  const bucketMs = name === 'hour' ? 60_000 : 15 * 60_000;
  const count = name === 'hour' ? 60 : 96;
  const end = Math.ceil(now.getTime() / bucketMs) * bucketMs;
  return { name, bucketMs, count, start: end - bucketMs * count, end };
}

/** The bucket a time falls in, or -1 outside the window. */
export function bucketOf(window: ChartWindow, time: number): number {
  if (time < window.start || time >= window.end) return -1;
  return Math.floor((time - window.start) / window.bucketMs);
}

/** The end time of each bucket, as ISO text (the charts' x axis). */
export function bucketEnds(window: ChartWindow): string[] {
  return Array.from({ length: window.count }, (_, index) =>
    new Date(window.start + (index + 1) * window.bucketMs).toISOString(),
  );
}
