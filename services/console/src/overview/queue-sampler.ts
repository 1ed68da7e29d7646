import type { Clock } from '@berth/contract';
import { getQueueDepths, JOBS_STREAM_NAME, queueConsumerName, type QueueDepth } from '@berth/jobs';
import { isNotFound, type Messaging } from '@berth/messaging';
import type { BerthLogger } from '@berth/logger';
import { bucketOf, type ChartWindow } from './windows';

/** One reading of one queue. */
interface QueueReading extends QueueDepth {
  at: number;
  /** The queue consumer's ack floor (consumer sequence): messages done so far, for the per-minute rate. */
  acked: number | null;
}

/** The charts of one queue over a window, from the samples. */
export interface QueueSeries {
  queue: string;
  /** Job messages completed (acked) per minute. */
  completedPerMinute: number[];
  /** Jobs newly dead-lettered in each bucket. */
  failures: number[];
  /** Waiting plus delayed at the end of each bucket. */
  backlog: number[];
  /** Being worked on (ack pending). */
  running: number[];
  current: QueueDepth;
}

/** Samples the queues' depths at an interval, for the Overview's job charts (JetStream keeps no history of them). */
export interface QueueSampler {
  start(): void;
  stop(): void;
  /** Takes one sample now. */
  sample(): Promise<void>;
  /** When sampling started: the charts hold nothing before. */
  readonly since: Date;
  series(window: ChartWindow): QueueSeries[];
}

/**
 * A sampler keeping a day of readings in memory (one per `intervalMs` per queue): the job charts start when the
 * console does, and a restart starts them again; the webhook charts, computed from the inbox, do not depend on it.
 */
export function createQueueSampler(options: {
  messaging: Messaging;
  logger: BerthLogger;
  clock: Clock;
  intervalMs: number;
}): QueueSampler {
  const readings: QueueReading[] = [];
  const keepMs = 24 * 60 * 60 * 1000 + 15 * 60 * 1000;
  let timer: NodeJS.Timeout | undefined;
  let since = options.clock.now();
  const ackFloors = async (): Promise<Map<string, number>> => {
    const floors = new Map<string, number>();
    try {
      for (const info of await options.messaging.jsm.consumers.list(JOBS_STREAM_NAME).next())
        floors.set(info.name, info.ack_floor.consumer_seq);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    return floors;
  };
  const sample = async (): Promise<void> => {
    const at = options.clock.now().getTime();
    const [depths, floors] = await Promise.all([getQueueDepths(options.messaging), ackFloors()]);
    for (const depth of depths)
      readings.push({ ...depth, at, acked: floors.get(queueConsumerName(depth.queue)) ?? null });
    while (readings.length > 0 && readings[0].at < at - keepMs) readings.shift();
  };
  return {
    get since() {
      return since;
    },
    start() {
      since = options.clock.now();
      const tick = () =>
        sample().catch((error: unknown) => options.logger.warn({ err: error }, 'Could not sample the queue depths'));
      void tick();
      timer = setInterval(tick, options.intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    sample,
    series(window) {
      const byQueue = new Map<string, QueueReading[]>();
      for (const reading of readings) byQueue.set(reading.queue, [...(byQueue.get(reading.queue) ?? []), reading]);
      return [...byQueue.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([queue, list]) => seriesOf(queue, list, window));
    },
  };
}

function seriesOf(queue: string, list: QueueReading[], window: ChartWindow): QueueSeries {
  const zeros = () => new Array<number>(window.count).fill(0);
  const series: QueueSeries = {
    queue,
    completedPerMinute: zeros(),
    failures: zeros(),
    backlog: zeros(),
    running: zeros(),
    current: list[list.length - 1],
  };
  const minutesPerBucket = window.bucketMs / 60_000;
  for (let index = 1; index < list.length; index += 1) {
    const previous = list[index - 1];
    const reading = list[index];
    const bucket = bucketOf(window, reading.at);
    if (bucket < 0) continue;
    if (reading.acked !== null && previous.acked !== null && reading.acked >= previous.acked)
      series.completedPerMinute[bucket] += (reading.acked - previous.acked) / minutesPerBucket;
    series.failures[bucket] += Math.max(0, reading.deadLetters - previous.deadLetters);
  }
  for (const reading of list) {
    const bucket = bucketOf(window, reading.at);
    if (bucket < 0) continue;
    series.backlog[bucket] = reading.pending + reading.delayed;
    series.running[bucket] = reading.ackPending;
  }
  series.completedPerMinute = series.completedPerMinute.map((value) => Math.round(value * 100) / 100);
  return series;
}
