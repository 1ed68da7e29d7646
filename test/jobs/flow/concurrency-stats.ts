import type { FlowEvent } from '../fixtures/flow-events';

/**
 * The most handlers of each key that were running at the same instant, from the start and end times the workers
 * reported (one machine clock, so comparable across processes). An end and a start at the same instant don't overlap.
 */
export function maxConcurrentByKey(events: readonly FlowEvent[]): Map<string, number> {
  const byKey = new Map<string, { at: number; delta: number }[]>();
  for (const event of events) {
    const key = event.key ?? '';
    const list = byKey.get(key) ?? [];
    list.push({ at: event.at, delta: event.type === 'start' ? 1 : -1 });
    byKey.set(key, list);
  }
  const result = new Map<string, number>();
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.at - b.at || a.delta - b.delta);
    let running = 0;
    let max = 0;
    for (const point of list) {
      running += point.delta;
      max = Math.max(max, running);
    }
    result.set(key, max);
  }
  return result;
}
