/**
 * The worker's crons end to end, on real nats-server and FerretDB, app-worker and a scheduler replica in this
 * process:
 *
 * - app-worker registers the crons it discovers when it starts (`SendWeeklySummariesCronJob`, `0 8 * * 1`, UTC, and
 *   a test cron), and the scheduler logs `Cron SendWeeklySummariesCronJob scheduled: 0 8 * * 1 (UTC).`;
 * - overlap policy: a cron every second whose run lasts until a later tick has arrived and been skipped; the ticks
 *   that arrive while a run goes on are skipped with a log line, and runs never overlap;
 * - a second start without the test cron's class removes its schedule (no command), the other stays unchanged.
 */
import { waitFor } from '@berth/local-infra/testing';
import { Module } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { CronProcessor, Process } from '@berth/jobs';
import { createLogger, type BerthLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { openCronBuckets, readCronSchedules, type CronBuckets } from '@berth/cron';
import { loadAppWorkerConfig } from '../../services/app-worker/src/config';
import { startQueueWorker, type RunningQueueWorker } from '../../services/app-worker/src/start-queue-worker';
import { SchedulerMetrics } from '../../services/scheduler/src/metrics';
import { Scheduler } from '../../services/scheduler/src/scheduler';
import { startNatsWithUsers, type NatsWithUsers } from '../support/nats-with-users';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
type Line = Record<string, unknown> & { msg: string };

/** nats-server with Berth's NATS users: the scheduler as its own, the worker as app-worker. */
let nats: NatsWithUsers;
let ferret: FerretDbHandle;
let messaging: Messaging;
let buckets: CronBuckets;
let scheduler: Scheduler | undefined;
let worker: RunningQueueWorker | undefined;
const schedulerLines: Line[] = [];
const workerLines: Line[] = [];
/** Emits `line` for each line written to a sink, as it is written. */
const logged = new EventEmitter();

function lineSink(lines: Line[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n'))
        if (text.trim()) {
          const line = JSON.parse(text) as Line;
          lines.push(line);
          logged.emit('line', line);
        }
      done();
    },
  });
}

const SKIPPED = /^Cron SlowEverySecondCronJob: tick \S+ skipped, the run of tick \S+ is still going on /;
/** Set once the overlap test is over: runs of the slow cron then end at once. */
let slowRunsReleased = false;

/** Resolves once the worker logs that a tick was skipped (a later tick arrived during the run), or on release. */
function untilTickSkipped(): Promise<void> {
  return new Promise((resolve) => {
    if (slowRunsReleased) return resolve();
    const onLine = (line: Line): void => {
      if (SKIPPED.test(line.msg)) done();
    };
    const done = (): void => {
      logged.off('line', onLine);
      logged.off('release', done);
      resolve();
    };
    logged.on('line', onLine);
    logged.on('release', done);
  });
}

function releaseSlowRuns(): void {
  slowRunsReleased = true;
  logged.emit('release');
}

/** What the slow cron saw: its runs (by tick) and the most runs going at once. */
const slow = { running: 0, maxRunning: 0, ticks: [] as string[] };

// Every second; each run lasts until a later tick has arrived while it goes on, and been skipped.
@CronProcessor({ pattern: '* * * * * *' })
class SlowEverySecondCronJob {
  @Process(SlowEverySecondCronJob.name)
  async handle(data: { scheduledAt?: string }): Promise<void> {
    slow.running += 1;
    slow.maxRunning = Math.max(slow.maxRunning, slow.running);
    slow.ticks.push(String(data.scheduledAt));
    await untilTickSkipped();
    slow.running -= 1;
  }
}

@Module({ providers: [SlowEverySecondCronJob] })
class SlowCronModule {}

function workerConfig() {
  return loadAppWorkerConfig({
    NATS_URL: nats.urlAs('app-worker'),
    MONGO_URL: ferret.url,
    MONGO_DB: `worker_crons_${process.pid}`,
    LOG_LEVEL: 'info',
    HEALTH_PORT: '0',
    HEALTH_HOST: '127.0.0.1',
    WORKER_SHUTDOWN_GRACE_MS: '5000',
  });
}

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNatsWithUsers({ binDir }), startFerretDb({ binDir })]);
  const silent = createLogger({ service: 'worker-crons-test', level: 'silent' });
  // The in-process scheduler's connection, as the scheduler's user.
  messaging = await connectMessaging({ servers: nats.urlAs('scheduler'), name: 'worker-crons-test', logger: silent });
  buckets = await openCronBuckets(messaging.js);
  const schedulerLogger: BerthLogger = createLogger({
    service: 'scheduler',
    level: 'info',
    destination: lineSink(schedulerLines),
  });
  scheduler = await Scheduler.create({
    messaging,
    logger: schedulerLogger,
    metrics: new SchedulerMetrics(),
    holder: 'scheduler-test',
    leaseTtlMs: 2000,
    tickIntervalMs: 200,
  });
  await scheduler.start();
}, 60000);

afterAll(async () => {
  releaseSlowRuns();
  await worker?.stop().catch(() => undefined);
  await scheduler?.stop().catch(() => undefined);
  await messaging?.close();
  await Promise.all([nats?.stop(), ferret?.stop()]);
});

describe('app-worker registers its crons; the scheduler emits them; overlapping ticks are skipped', () => {
  it('registers the discovered crons at start, and the scheduler schedules them', async () => {
    worker = await startQueueWorker(workerConfig(), {
      imports: [SlowCronModule],
      logDestination: lineSink(workerLines),
    });

    const stored = await readCronSchedules(buckets.schedules);
    expect(stored.get('SendWeeklySummariesCronJob')?.schedule).toMatchObject({
      pattern: '0 8 * * 1',
      timeZone: 'UTC',
      queue: 'cron-queue',
      owner: 'app-worker',
    });
    expect(stored.get('SlowEverySecondCronJob')?.schedule).toMatchObject({
      pattern: '* * * * * *',
      timeZone: 'UTC',
      queue: 'cron-queue',
      owner: 'app-worker',
    });
    const registered = workerLines.find(
      (line) => line.msg === 'Cron SendWeeklySummariesCronJob scheduled: 0 8 * * 1 (UTC).',
    );
    expect(registered).toMatchObject({ cron: 'SendWeeklySummariesCronJob', owner: 'app-worker', change: 'added' });
    // Registered before the worker says it is ready.
    expect(workerLines.indexOf(registered!)).toBeLessThan(
      workerLines.findIndex((line) => line.msg === 'Queue worker ready'),
    );

    await waitFor(
      () => schedulerLines.some((line) => line.msg === 'Cron SendWeeklySummariesCronJob scheduled: 0 8 * * 1 (UTC).'),
      { what: "the scheduler's line", timeoutMs: 10000 },
    );
    await waitFor(
      () => schedulerLines.some((line) => line.msg === 'Cron SlowEverySecondCronJob scheduled: * * * * * * (UTC).'),
      { what: 'the test cron scheduled', timeoutMs: 10000 },
    );
  }, 60000);

  it('skips, with a log line, a tick that arrives while the previous run of its cron is still going', async () => {
    const skipped = (): Line[] => workerLines.filter((line) => SKIPPED.test(line.msg));
    await waitFor(() => slow.ticks.length >= 2 && skipped().length >= 2, {
      what: 'two runs and two skipped ticks',
      timeoutMs: 20000,
    });

    expect(slow.maxRunning).toBe(1);
    const skip = skipped()[0];
    // The line is written during the tick's job: it names the job.
    expect(skip).toMatchObject({
      jobName: 'SlowEverySecondCronJob',
      queue: 'cron-queue',
      cron: 'SlowEverySecondCronJob',
      level: 30,
    });
    expect(String(skip.jobId)).toMatch(/^cron:SlowEverySecondCronJob:/);
    // The run in progress is named: one of the ticks that did run.
    const heldTick = (skip.heldBy as { tick: string }).tick;
    expect(slow.ticks).toContain(heldTick);
    // Skipped ticks complete: nothing is retried or dead-lettered.
    expect(workerLines.filter((line) => line.jobName === 'SlowEverySecondCronJob' && Number(line.level) >= 40)).toEqual(
      [],
    );
  }, 60000);

  it('removes the schedule of a cron the worker no longer defines at its next start', async () => {
    releaseSlowRuns();
    await worker!.stop();
    worker = undefined;
    workerLines.length = 0;
    worker = await startQueueWorker(workerConfig(), { logDestination: lineSink(workerLines) });

    const stored = await readCronSchedules(buckets.schedules);
    expect([...stored.keys()]).toEqual(['SendWeeklySummariesCronJob']);
    expect(workerLines.map((line) => line.msg)).toContain(
      'Cron SlowEverySecondCronJob unscheduled: app-worker no longer defines it.',
    );
    expect(
      workerLines.find((line) => line.msg === 'Cron SendWeeklySummariesCronJob scheduled: 0 8 * * 1 (UTC).'),
    ).toMatchObject({ change: 'unchanged' });
    await waitFor(() => schedulerLines.some((line) => line.msg === 'Cron SlowEverySecondCronJob unscheduled.'), {
      what: 'the scheduler to drop the schedule',
      timeoutMs: 10000,
    });
  }, 60000);
});
