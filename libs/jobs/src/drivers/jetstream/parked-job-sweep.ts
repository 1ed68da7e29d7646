import type { BerthLogger } from '@berth/logger';
import type { JobRecord } from '../../job-record';
import type { KeyLimit, KeySlots } from './kv-key-slots';

/** Options for {@link startParkedJobSweep}. */
export interface ParkedJobSweepOptions {
  keySlots: KeySlots;
  queue: string;
  leaseMs: number;
  /** The concurrency limit of a parked job (from its record, else its job's `@Process`). */
  limitOf: (record: JobRecord, name: string) => KeyLimit | undefined;
  logger: BerthLogger;
  /** Time between two sweeps; default 1000 ms. */
  everyMs?: number;
}

/** A running sweep; `stop` waits for the sweep in progress. */
export interface ParkedJobSweep {
  stop(): Promise<void>;
}

/**
 * Every `everyMs`, wakes the parked jobs of the queue whose key has a free slot ({@link KeySlots.sweep}). Releases
 * wake parked jobs at once; the sweep is for the slots nobody releases: a holder whose process died (its lease runs
 * out by the server's clock, then the next sweep hands its slot on), a release that failed, a waker that died
 * half-way. So a parked job waits at most a lease plus one sweep behind a dead holder.
 */
export function startParkedJobSweep(options: ParkedJobSweepOptions): ParkedJobSweep {
  const everyMs = options.everyMs ?? 1000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = options.keySlots
      .sweep(options.queue, options.leaseMs, options.limitOf)
      .then(
        () => undefined,
        (error: unknown) => options.logger.warn({ err: error }, 'Could not sweep the parked jobs; trying again'),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, everyMs);
      });
  };
  timer = setTimeout(tick, everyMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
