import { createLogger } from '@berth/logger';
import { waitFor } from '@berth/local-infra/testing';
import { readRunLock, withCronRunLock, type CronBuckets } from './index';
import { captureLogger, kvUpdates, startTestNats, type TestNats } from './test-support/nats';

const silent = createLogger({ service: 'run-lock-test', level: 'silent' });
let nats: TestNats;

beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await nats.close();
});

const tick = (second: number): Date => new Date(Date.UTC(2025, 0, 1, 10, 0, second));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('withCronRunLock (overlap policy: skip)', () => {
  let buckets: CronBuckets;
  beforeEach(async () => {
    buckets = await nats.freshBuckets();
  });

  it('skips a tick whose run would overlap the one still going, with a log line, and runs the next one after', async () => {
    const { logger, lines } = captureLogger();
    const release = deferred();
    const started = deferred();
    const first = withCronRunLock(
      { buckets, name: 'SlowCronJob', tick: tick(0), holder: 'worker-1', logger },
      async () => {
        started.resolve();
        await release.promise;
        return 'first';
      },
    );
    await started.promise;
    const second = await withCronRunLock(
      { buckets, name: 'SlowCronJob', tick: tick(1), holder: 'worker-2', logger },
      async () => 'second',
    );
    expect(second).toEqual({
      ran: false,
      heldBy: { holder: 'worker-1', tick: tick(0).toISOString(), startedAt: expect.any(String) },
    });
    expect(lines.map((line) => line.msg)).toContainEqual(
      expect.stringMatching(
        /^Cron SlowCronJob: tick 2025-01-01T10:00:01.000Z skipped, the run of tick 2025-01-01T10:00:00.000Z is still going on worker-1 since /,
      ),
    );
    // Another cron is not blocked.
    expect(
      await withCronRunLock(
        { buckets, name: 'OtherCronJob', tick: tick(1), holder: 'worker-2', logger },
        async () => 'other',
      ),
    ).toEqual({ ran: true, value: 'other' });
    release.resolve();
    expect(await first).toEqual({ ran: true, value: 'first' });
    expect(await readRunLock(buckets.runLocks, 'SlowCronJob')).toBeNull();
    expect(
      await withCronRunLock(
        { buckets, name: 'SlowCronJob', tick: tick(2), holder: 'worker-2', logger },
        async () => 'third',
      ),
    ).toEqual({ ran: true, value: 'third' });
  });

  it('renews the lock while a run outlasts the TTL', async () => {
    const release = deferred();
    let aborted = false;
    // The server's TTL (2 s) runs on its own clock: four renewals, 666 ms apart, outlast it.
    const renewals = kvUpdates(buckets.runLocks, 'LongCronJob', 5);
    const startedAt = performance.now();
    const long = withCronRunLock(
      { buckets, name: 'LongCronJob', tick: tick(0), holder: 'worker-1', logger: silent, ttlMs: 2000 },
      async (signal) => {
        await release.promise;
        aborted = signal.aborted;
      },
    );
    await renewals;
    expect(performance.now() - startedAt).toBeGreaterThan(2000);
    expect(
      await withCronRunLock(
        { buckets, name: 'LongCronJob', tick: tick(3), holder: 'worker-2', logger: silent, ttlMs: 2000 },
        async () => undefined,
      ),
    ).toMatchObject({ ran: false });
    release.resolve();
    await long;
    expect(aborted).toBe(false);
  });

  it('a crashed worker blocks the cron for one TTL at most', async () => {
    // A lock left by a worker that died mid-run (never renewed, never released).
    await buckets.runLocks.create(
      'CrashedCronJob',
      JSON.stringify({ holder: 'dead-worker', tick: tick(0).toISOString(), startedAt: tick(0).toISOString() }),
      '2s',
    );
    expect(
      await withCronRunLock(
        { buckets, name: 'CrashedCronJob', tick: tick(1), holder: 'worker-2', logger: silent },
        async () => 1,
      ),
    ).toMatchObject({ ran: false });
    const ran = await waitFor(
      async () => {
        const result = await withCronRunLock(
          { buckets, name: 'CrashedCronJob', tick: tick(3), holder: 'worker-2', logger: silent },
          async () => 1,
        );
        return result.ran ? result : undefined;
      },
      { timeoutMs: 2200, intervalMs: 100, what: "the crashed worker's lock to expire (one TTL)" },
    );
    expect(ran).toEqual({ ran: true, value: 1 });
  });

  it('releases the lock when the run fails, and rethrows so the job is retried', async () => {
    await expect(
      withCronRunLock(
        { buckets, name: 'FailingCronJob', tick: tick(0), holder: 'worker-1', logger: silent },
        async () => {
          throw new Error('boom');
        },
      ),
    ).rejects.toThrow('boom');
    expect(await readRunLock(buckets.runLocks, 'FailingCronJob')).toBeNull();
  });

  it('aborts the signal when the lock is lost during the run', async () => {
    const { logger, lines } = captureLogger();
    const result = await withCronRunLock(
      { buckets, name: 'StolenCronJob', tick: tick(0), holder: 'worker-1', logger, ttlMs: 2000 },
      async (signal) => {
        await buckets.runLocks.put(
          'StolenCronJob',
          JSON.stringify({ holder: 'someone-else', tick: tick(0).toISOString(), startedAt: '' }),
        );
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        return signal.aborted;
      },
    );
    expect(result).toEqual({ ran: true, value: true });
    expect(lines.map((line) => line.msg)).toContain('Cron StolenCronJob: run lock lost; another run may start');
    expect((await readRunLock(buckets.runLocks, 'StolenCronJob'))?.holder).toBe('someone-else');
  });
});
