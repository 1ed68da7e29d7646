import { cronRunLockGuard, readRunLock } from './index';
import { captureLogger, startTestNats, type TestNats } from './test-support/nats';

let nats: TestNats;
beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await nats.close();
});

describe("cronRunLockGuard (the job API's cronRunGuard)", () => {
  it('runs a cron under its run lock, and skips a tick of the same cron while a run holds it', async () => {
    const buckets = await nats.freshBuckets();
    const { logger, lines } = captureLogger();
    const guard = cronRunLockGuard({ buckets, holder: 'worker-1', logger });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let lockDuringRun: unknown;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const first = guard({ name: 'GuardedCronJob', tick: new Date('2026-01-05T08:00:00.000Z') }, async (signal) => {
      lockDuringRun = await readRunLock(buckets.runLocks, 'GuardedCronJob');
      expect(signal.aborted).toBe(false);
      started();
      await held;
    });
    await running;
    let ranSecond = false;
    const second = await guard({ name: 'GuardedCronJob', tick: new Date('2026-01-05T08:00:01.000Z') }, async () => {
      ranSecond = true;
    });
    expect(second).toMatchObject({ ran: false, heldBy: { holder: 'worker-1', tick: '2026-01-05T08:00:00.000Z' } });
    expect(ranSecond).toBe(false);
    expect(lines.map((line) => line.msg)).toContainEqual(
      expect.stringMatching(
        /^Cron GuardedCronJob: tick 2026-01-05T08:00:01.000Z skipped, the run of tick 2026-01-05T08:00:00.000Z is still going on worker-1/,
      ),
    );
    release();
    expect(await first).toEqual({ ran: true, value: undefined });
    expect(lockDuringRun).toMatchObject({ holder: 'worker-1', tick: '2026-01-05T08:00:00.000Z' });
    expect(await readRunLock(buckets.runLocks, 'GuardedCronJob')).toBeNull();
  });
});
