/**
 * The soak's cron: a schedule of its own (every 10 s, on queue `soak-cron-queue`, which no service runs), whose tick
 * jobs the soak consumes itself and counts by job id, so a tick stored twice or a scheduler that stopped emitting
 * shows in the ledger.
 */
import { CRON_JOB_HEADERS, registerCronSchedules } from '@berth/cron';
import type { BerthLogger } from '@berth/logger';
import {
  ensureConsumer,
  exponentialBackoff,
  startConsumer,
  type ConsumerRunner,
  type Messaging,
} from '@berth/messaging';

const QUEUE = 'soak-cron-queue';
export const SOAK_CRON_INTERVAL_MS = 10_000;

/** Registers the schedule; the schedulers emit its ticks from their next reload. */
export async function registerSoakCron(messaging: Messaging, logger: BerthLogger, run: string): Promise<void> {
  await registerCronSchedules({
    messaging,
    owner: `soak-${run}`,
    logger,
    definitions: [{ name: `SoakTick_${run}`, pattern: '*/10 * * * * *', queue: QUEUE }],
  });
}

/** Counts the ticks as they arrive. */
export class CronTickCounter {
  /** Stream sequences per tick id: more than one means the tick was stored twice. */
  readonly stored = new Map<string, Set<number>>();
  /** Arrival times (ms) of the first delivery of each tick, in order. */
  readonly arrivals: number[] = [];

  private constructor(private runner?: ConsumerRunner) {}

  static async start(messaging: Messaging, logger: BerthLogger, run: string): Promise<CronTickCounter> {
    const counter = new CronTickCounter();
    const durable = `soak-${run}`;
    await ensureConsumer(messaging.jsm, {
      stream: 'JOBS',
      durable,
      filterSubjects: [`jobs.${QUEUE}.SoakTick_${run}`],
      ackWaitMs: 30_000,
    });
    counter.runner = await startConsumer({
      js: messaging.js,
      stream: 'JOBS',
      consumer: durable,
      concurrency: 4,
      ackWaitMs: 30_000,
      logger,
      retryPolicy: exponentialBackoff({ maxAttempts: 100, baseDelayMs: 1000 }),
      handler: async (message) => {
        const id = message.headers?.get(CRON_JOB_HEADERS.jobId) ?? message.msgId ?? `seq:${message.streamSequence}`;
        const sequences = counter.stored.get(id) ?? new Set<number>();
        if (sequences.size === 0) counter.arrivals.push(Date.now());
        sequences.add(message.streamSequence);
        counter.stored.set(id, sequences);
      },
    });
    return counter;
  }

  async stop(): Promise<void> {
    await this.runner?.stop(1000);
  }
}
