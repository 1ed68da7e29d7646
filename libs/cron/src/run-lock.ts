import type { BerthLogger } from '@berth/logger';
import type { CronBuckets } from './buckets';
import { systemClock, type Clock } from '@berth/contract';
import { compareAndSetKv, ttlHeaderValue, updateWithTtl } from '@berth/messaging';
import type { KvEntry } from '@nats-io/kv';

/** Who holds a cron's run lock, as stored under the cron's name in the run-lock bucket. */
export interface CronRunLockHolder {
  /** The worker running it. */
  holder: string;
  /** ISO time of the tick being run. */
  tick: string;
  /** ISO time the run started. */
  startedAt: string;
}

/** Options for {@link withCronRunLock}. */
export interface CronRunLockOptions {
  buckets: Pick<CronBuckets, 'js' | 'runLocks' | 'names'>;
  /** The cron's name (the job name). */
  name: string;
  /** The tick being run (the job's `scheduledAt`). */
  tick: Date;
  /** This worker's id (`<hostname>:<pid>:<random>`). */
  holder: string;
  logger: BerthLogger;
  /**
   * Lock lifetime without renewal: how long a crashed worker blocks the cron's next runs. Renewed every third of it
   * while the run goes on. Rounded up to whole seconds by the server; 30 s by default.
   */
  ttlMs?: number;
  /** Time and the renewal timer (the system's by default). */
  clock?: Clock;
}

/** What {@link withCronRunLock} did: ran the function, or skipped it because a run of the same cron was going. */
export type CronRunLockResult<T> = { ran: true; value: T } | { ran: false; heldBy: CronRunLockHolder | null };

/**
 * Berth's **overlap policy: skip** (Kubernetes' `concurrencyPolicy: Forbid`). A cron's run holds a KV lock keyed
 * by the cron's name; a tick whose job starts while the previous run still holds it is not run: it is logged
 * (`Cron <Name>: tick <T> skipped, the run of tick <T0> is still going`) and the job completes. Ticks do not pile
 * up behind a slow run, and nothing is lost when crons process "everything since the last success": the next tick
 * after the long run picks up the work.
 *
 * The job runtime wraps each cron handler in this. The lock has a server-side TTL and is renewed every TTL/3 while
 * `run` goes on, so a crashed worker blocks the cron for at most one TTL. If a renewal fails (the lock expired while
 * the worker was frozen, or NATS is unreachable), `signal` is aborted: the handler can stop early; it is not killed.
 * The lock is released (compare-and-set) when `run` settles; an error from `run` is rethrown after that, so the job
 * is retried like any job.
 */
export async function withCronRunLock<T>(
  options: CronRunLockOptions,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<CronRunLockResult<T>> {
  const { buckets, name, logger } = options;
  const clock = options.clock ?? systemClock;
  const ttlMs = options.ttlMs ?? 30_000;
  const record: CronRunLockHolder = {
    holder: options.holder,
    tick: options.tick.toISOString(),
    startedAt: clock.now().toISOString(),
  };
  // Taken only when no run holds it: a create with the lock's TTL; a conflict reads it again (released meanwhile:
  // take it; held: skip this tick). An entry that is there but unreadable counts as held.
  const taken = await compareAndSetKv<CronRunLockHolder, { revision: number } | { heldBy: CronRunLockHolder | null }>(
    buckets.runLocks,
    name,
    ({ value, entry }) =>
      value || entry?.operation === 'PUT'
        ? { result: { heldBy: value ?? null } }
        : { write: { put: record, ttl: ttlHeaderValue(ttlMs) }, resultOf: (stored) => ({ revision: stored }) },
    { decode: decodeRunLock, rounds: 2, clock, what: `The run lock of cron ${name}` },
  );
  if ('heldBy' in taken) {
    const { heldBy } = taken;
    logger.info(
      { cron: name, tick: record.tick, heldBy },
      `Cron ${name}: tick ${record.tick} skipped, the run of tick ${heldBy?.tick ?? '(unknown)'} is still going${heldBy ? ` on ${heldBy.holder} since ${heldBy.startedAt}` : ''}.`,
    );
    return { ran: false, heldBy };
  }
  let revision = taken.revision;

  const controller = new AbortController();
  let renewal: Promise<void> = Promise.resolve();
  const renewEveryMs = Math.max(100, Math.floor(ttlMs / 3));
  const renew = async (): Promise<void> => {
    if (controller.signal.aborted) return;
    try {
      revision = await updateWithTtl(buckets.js, buckets.names.runLocks, name, JSON.stringify(record), revision, ttlMs);
    } catch (error) {
      logger.warn({ cron: name, tick: record.tick, err: error }, `Cron ${name}: run lock lost; another run may start`);
      controller.abort(new Error(`Run lock of ${name} lost: ${(error as Error).message}`));
    }
  };
  let cancelTimer = (): void => undefined;
  const scheduleRenewal = (): void => {
    cancelTimer = clock.setTimer(renewEveryMs, () => {
      renewal = renewal.then(renew);
      scheduleRenewal();
    });
  };
  scheduleRenewal();
  try {
    return { ran: true, value: await run(controller.signal) };
  } finally {
    cancelTimer();
    await renewal;
    if (!controller.signal.aborted) {
      await buckets.runLocks.delete(name, { previousSeq: revision }).catch((error: unknown) => {
        logger.warn({ cron: name, err: error }, `Cron ${name}: could not release the run lock; it expires by its TTL`);
      });
    }
  }
}

/** The current holder of a cron's run lock, or null when no run of it is going. */
export async function readRunLock(kv: CronBuckets['runLocks'], name: string): Promise<CronRunLockHolder | null> {
  const entry = await kv.get(name);
  return entry && entry.operation === 'PUT' ? (decodeRunLock(entry) ?? null) : null;
}

function decodeRunLock(entry: KvEntry): CronRunLockHolder | undefined {
  try {
    return entry.json<CronRunLockHolder>();
  } catch {
    return undefined;
  }
}
