/**
 * The soak's cron: a schedule of its own (`SoakTick_<run>`, every 10 s) on the product cron queue `cron-queue`, the
 * only one besides the platform's that the scheduler's NATS user may publish ticks to (deploy/nats/auth.conf).
 * `JOBS` is a work queue whose `cron-queue` subjects the app-worker's consumer owns, so the soak cannot read the
 * ticks there: the app-worker knows no job of that name and sets each tick aside in `DEAD_LETTERS` at once (reason
 * `invalid`, with the tick's job id and its sequence in `JOBS`). The soak counts those dead letters: two `JOBS`
 * sequences for one tick id is a tick stored twice; a tick set aside twice from one message (a worker killed
 * between the dead letter and the ack) is one tick.
 */
import type { BerthLogger } from '@berth/logger';
import { registerCronSchedules } from '@berth/cron';
import { CRON_QUEUE_NAME, DEAD_LETTERS_STREAM_NAME, type DeadLetter } from '@berth/jobs';
import {
  ensureConsumer,
  exponentialBackoff,
  startConsumer,
  type ConsumerRunner,
  type Messaging,
} from '@berth/messaging';

export const SOAK_CRON_INTERVAL_MS = 10_000;

const tickName = (run: string): string => `SoakTick_${run}`;

/** Registers the schedule; the schedulers emit its ticks from their next reload. */
export async function registerSoakCron(messaging: Messaging, logger: BerthLogger, run: string): Promise<void> {
  await registerCronSchedules({
    messaging,
    owner: `soak-${run}`,
    logger,
    definitions: [{ name: tickName(run), pattern: '*/10 * * * * *', queue: CRON_QUEUE_NAME }],
  });
}

/** Counts the ticks as they arrive (as the app-worker's dead letters). */
export class CronTickCounter {
  /** `JOBS` sequences per tick id: more than one means the tick was stored twice. */
  readonly stored = new Map<string, Set<number>>();
  /** Arrival times (ms) of the first dead letter of each tick, in order. */
  readonly arrivals: number[] = [];

  private constructor(private runner?: ConsumerRunner) {}

  static async start(messaging: Messaging, logger: BerthLogger, run: string): Promise<CronTickCounter> {
    const counter = new CronTickCounter();
    const durable = `soak-${run}`;
    await ensureConsumer(messaging.jsm, {
      stream: DEAD_LETTERS_STREAM_NAME,
      durable,
      filterSubjects: [`dead.jobs.${CRON_QUEUE_NAME}.${tickName(run)}`],
      ackWaitMs: 30_000,
    });
    counter.runner = await startConsumer({
      js: messaging.js,
      stream: DEAD_LETTERS_STREAM_NAME,
      consumer: durable,
      concurrency: 4,
      ackWaitMs: 30_000,
      logger,
      retryPolicy: exponentialBackoff({ maxAttempts: 100, baseDelayMs: 1000 }),
      handler: async (message) => {
        const letter = message.json<DeadLetter>();
        const sequences = counter.stored.get(letter.jobId) ?? new Set<number>();
        if (sequences.size === 0) counter.arrivals.push(Date.now());
        sequences.add(letter.originalStreamSequence);
        counter.stored.set(letter.jobId, sequences);
      },
    });
    return counter;
  }

  async stop(): Promise<void> {
    await this.runner?.stop(1000);
  }
}
