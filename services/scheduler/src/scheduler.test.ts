import { ManualClock } from '@berth/contract/testing';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { waitForEvent, waitForEvents } from '@berth/local-infra/testing';
import { createLogger, type BerthLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import {
  LastTickStore,
  LEADER_KEY,
  registerCronSchedules,
  type CronBucketOptions,
  type CronDefinition,
} from '@berth/cron';
import { startHealthServer } from '@berth/metrics';
import { SchedulerMetrics } from './metrics';
import { Scheduler } from './scheduler';
import type { ScheduleChange } from './scheduler-events';
import { readStoredTicks } from './test-support/stored-ticks';

const silent = createLogger({ service: 'scheduler-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;
let counter = 0;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'scheduler-test', logger: silent });
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

function captureLogger(): { logger: BerthLogger; messages: string[] } {
  const messages: string[] = [];
  const logger = createLogger({
    service: 'scheduler-test',
    level: 'debug',
    destination: { write: (line: string) => void messages.push(JSON.parse(line).msg) },
  });
  return { logger, messages };
}

/** Fresh bucket names and a fresh cron name per test: the JOBS stream is shared. */
function fresh(): { buckets: CronBucketOptions; name: string } {
  counter += 1;
  return {
    buckets: {
      names: { schedules: `s${counter}`, lastTicks: `l${counter}`, lease: `lease${counter}`, runLocks: `r${counter}` },
    },
    name: `Test${counter}CronJob`,
  };
}

interface ReplicaOptions {
  holder: string;
  clock: ManualClock;
  buckets: CronBucketOptions;
  logger?: BerthLogger;
  metrics?: SchedulerMetrics;
}

/** A scheduler on the test's clock with a 3 s lease and a 1 s tick loop, not started. */
function create(options: ReplicaOptions): Promise<Scheduler> {
  return Scheduler.create({
    messaging,
    logger: options.logger ?? silent,
    metrics: options.metrics ?? new SchedulerMetrics(),
    holder: options.holder,
    leaseTtlMs: 3000,
    tickIntervalMs: 1000,
    clock: options.clock,
    buckets: options.buckets,
  });
}

/** A scheduler that has read the schedules already registered, driven by hand (maintainLease, runPass). */
async function replica(options: ReplicaOptions): Promise<Scheduler> {
  const scheduler = await create(options);
  await scheduler.loadSchedules();
  return scheduler;
}

/** Registers `definitions` as the worker's whole set of crons (one left out is unscheduled). */
function register(scheduler: Scheduler, definitions: CronDefinition[], clock?: ManualClock): Promise<unknown> {
  return registerCronSchedules({ buckets: scheduler.buckets, owner: 'worker', definitions, logger: silent, clock });
}

/** Registers cron `name` on `pattern` and resolves when every replica's watcher has applied it. */
async function schedule(replicas: Scheduler[], clock: ManualClock, name: string, pattern: string): Promise<void> {
  const delivered = applied(replicas, name);
  await register(replicas[0], [{ name, pattern }], clock);
  await delivered;
}

/** Resolves when every replica's watcher has applied an entry of cron `name` (`until` narrows which). */
function applied(replicas: Scheduler[], name: string, change?: ScheduleChange): Promise<unknown> {
  const until = (event: { name: string; change: ScheduleChange }): boolean =>
    event.name === name && (change === undefined || event.change === change);
  return Promise.all(
    replicas.map((replica) =>
      waitForEvent(replica.events, 'schedule:applied', { until, what: `the watch to deliver ${name}` }),
    ),
  );
}

/** Resolves when `replica` has emitted `count` ticks of cron `name` from now on. */
const emitted = (replica: Scheduler, name: string, count: number) =>
  waitForEvents(replica.events, 'tick:emitted', count, { until: (event) => event.name === name });

/** Resolves when `replica` next becomes leader. */
const leads = (replica: Scheduler, timeoutMs?: number) =>
  waitForEvent(replica.events, 'lease:change', { until: ({ leading }) => leading, timeoutMs });

/** Resolves after the next lease round or tick-loop pass: what a timer of the scheduler starts. */
function nextRoundOrPass(replica: Scheduler): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      replica.events.off('lease:round', done);
      replica.events.off('tick:pass', done);
      resolve();
    };
    replica.events.on('lease:round', done);
    replica.events.on('tick:pass', done);
  });
}

const scheduledAts = async (name: string): Promise<string[]> =>
  (await readStoredTicks(messaging.jsm, `jobs.cron-queue.${name}`)).map((tick) => tick.scheduledAt);

describe('scheduler (in process, manual clock)', () => {
  it('emits each due tick once, as a cron-queue job with its scheduled time, and never backfills a new schedule', async () => {
    const { buckets, name } = fresh();
    const clock = new ManualClock('2025-01-01T10:00:00.200Z');
    const scheduler = await replica({ holder: 'a', clock, buckets });
    await schedule([scheduler], clock, name, '*/10 * * * *');
    expect(await scheduler.maintainLease()).toBe(true);

    expect((await scheduler.runPass())?.toISOString()).toBe('2025-01-01T10:10:00.000Z');
    clock.set('2025-01-01T10:10:00.005Z');
    expect(await scheduler.maintainLease()).toBe(true); // the manual clock jumped past the TTL: it renews its own lease
    await scheduler.runPass();
    await scheduler.runPass(); // a second pass in the same tick emits nothing more
    const stored = await readStoredTicks(messaging.jsm, `jobs.cron-queue.${name}`);
    expect(stored).toEqual([
      {
        seq: expect.any(Number),
        subject: `jobs.cron-queue.${name}`,
        scheduledAt: '2025-01-01T10:10:00.000Z',
        storedAt: expect.any(Date),
        headers: expect.objectContaining({
          'Nats-Msg-Id': `cron:${name}:2025-01-01T10:10:00.000Z`,
          'Berth-Job-Name': name,
          'Berth-Job-Id': `cron:${name}:2025-01-01T10:10:00.000Z`,
          'Berth-Queue': 'cron-queue',
          'Berth-Scheduled-At': '2025-01-01T10:10:00.000Z',
        }),
      },
    ]);
    const lastTick = await scheduler.buckets.lastTicks.get(name);
    expect(lastTick?.json()).toMatchObject({ tick: '2025-01-01T10:10:00.000Z', by: 'a' });
  });

  it('catches up once after every scheduler was down, with the latest missed tick', async () => {
    const { buckets, name } = fresh();
    const clock = new ManualClock('2025-01-01T10:00:00.200Z');
    const { logger, messages } = captureLogger();
    const metrics = new SchedulerMetrics();
    const scheduler = await replica({ holder: 'a', clock, buckets, logger, metrics });
    await schedule([scheduler], clock, name, '* * * * *');
    expect(await scheduler.maintainLease()).toBe(true);
    clock.set('2025-01-01T10:01:00.010Z');
    expect(await scheduler.maintainLease()).toBe(true);
    await scheduler.runPass();
    await scheduler.buckets.lease.delete(LEADER_KEY);
    clock.set('2025-01-01T12:30:20Z'); // two and a half hours later, a scheduler leads again
    expect(await scheduler.maintainLease()).toBe(true);
    await scheduler.runPass();
    expect(await scheduledAts(name)).toEqual(['2025-01-01T10:01:00.000Z', '2025-01-01T12:30:00.000Z']);
    expect(messages).toContain(
      `Cron ${name} missed its ticks from 2025-01-01T10:02:00.000Z to 2025-01-01T12:30:00.000Z while no scheduler ran; catching up once with 2025-01-01T12:30:00.000Z.`,
    );
    expect(await metrics.render()).toMatch(new RegExp(`scheduler_catch_ups_total\\{cron="${name}"\\} 1`));
  });

  it('a new leader emits every tick of the handover, one by one, and re-emitting one already stored is dropped', async () => {
    const { buckets, name } = fresh();
    const clock = new ManualClock('2025-01-01T10:00:00.200Z');
    const metricsB = new SchedulerMetrics();
    const a = await replica({ holder: 'a', clock, buckets });
    const b = await replica({ holder: 'b', clock, buckets, metrics: metricsB });
    await schedule([a, b], clock, name, '* * * * * *');
    expect(await a.maintainLease()).toBe(true);
    expect(await b.maintainLease()).toBe(false);
    clock.set('2025-01-01T10:00:02.010Z');
    expect(await a.maintainLease()).toBe(true);
    await a.runPass();
    // a published 10:00:03 but died before recording it; its lease expires; b takes over 3.5 s later.
    clock.set('2025-01-01T10:00:03.010Z');
    expect(await a.maintainLease()).toBe(true);
    await a.runPass();
    await a.buckets.lastTicks.put(name, JSON.stringify({ tick: '2025-01-01T10:00:02.000Z', emittedAt: '', by: 'a' }));
    await a.buckets.lease.delete(LEADER_KEY);
    clock.set('2025-01-01T10:00:06.500Z');
    expect(await b.maintainLease()).toBe(true);
    await b.runPass();
    expect(await scheduledAts(name)).toEqual([1, 2, 3, 4, 5, 6].map((second) => `2025-01-01T10:00:0${second}.000Z`));
    const text = await metricsB.render();
    expect(text).toMatch(new RegExp(`scheduler_ticks_emitted_total\\{cron="${name}"\\} 3`));
    expect(text).toMatch(new RegExp(`scheduler_ticks_duplicate_total\\{cron="${name}"\\} 1`));
  });

  it('two leaders in a split brain still store each tick once', async () => {
    const { buckets, name } = fresh();
    const clock = new ManualClock('2025-01-01T10:00:00.200Z');
    const a = await replica({ holder: 'a', clock, buckets });
    const b = await replica({ holder: 'b', clock, buckets });
    await schedule([a, b], clock, name, '* * * * * *');
    expect(await a.maintainLease()).toBe(true);
    await a.buckets.lease.delete(LEADER_KEY); // a's lease is gone on the server, but a's clock says it is still valid
    expect(await b.maintainLease()).toBe(true);
    expect(a.isLeader() && b.isLeader()).toBe(true);
    clock.set('2025-01-01T10:00:02.010Z');
    await Promise.all([a.runPass(), b.runPass()]);
    expect(await scheduledAts(name)).toEqual(['2025-01-01T10:00:01.000Z', '2025-01-01T10:00:02.000Z']);
  });

  it('a leader paused past its lease emits nothing when it wakes', async () => {
    const { buckets, name } = fresh();
    const clock = new ManualClock('2025-01-01T10:00:00.200Z');
    const { logger, messages } = captureLogger();
    const a = await replica({ holder: 'a', clock, buckets, logger });
    await schedule([a], clock, name, '* * * * * *');
    expect(await a.maintainLease()).toBe(true);
    clock.advance(10_000); // frozen (SIGSTOP) for 10 s
    await a.runPass();
    expect(await scheduledAts(name)).toEqual([]);
    expect(messages).toContain('Stepped down: lease expired by the local clock (no renewal in time)');
  });

  it('the leader deletes the last tick of a cron its owner unscheduled', async () => {
    const { buckets, name } = fresh();
    const clock = new ManualClock('2025-01-01T10:00:00Z');
    const a = await replica({ holder: 'a', clock, buckets });
    expect(await a.maintainLease()).toBe(true);
    await schedule([a], clock, name, '0 8 * * 1');
    await new LastTickStore(a.buckets.lastTicks, 'a', clock).record(name, new Date('2025-01-06T08:00:00Z'));
    const forgotten = waitForEvent(a.events, 'schedule:forgotten', { until: (event) => event.name === name });
    await register(a, [], clock);
    await forgotten;
    expect(await a.buckets.lastTicks.get(name)).toMatchObject({ operation: 'DEL' });
  });

  it('follows schedule changes and logs each schedule it sees', async () => {
    const { buckets, name } = fresh();
    const clock = new ManualClock('2025-01-01T10:00:00Z');
    const { logger, messages } = captureLogger();
    const a = await replica({ holder: 'a', clock, buckets, logger });
    const removed = applied([a], name, 'removed');
    await register(a, [{ name, pattern: '0 8 * * 1' }], clock);
    await register(a, [{ name, pattern: '0 8 * * 1' }], clock);
    await register(a, [{ name, pattern: '30 2 * * *', timeZone: 'Europe/Berlin' }], clock);
    await register(a, [], clock);
    await removed;
    expect(messages.filter((message) => message.startsWith(`Cron ${name}`))).toEqual([
      `Cron ${name} scheduled: 0 8 * * 1 (UTC).`,
      `Cron ${name} scheduled: 30 2 * * * (Europe/Berlin).`,
      `Cron ${name} unscheduled.`,
    ]);
    // A replica starting now sees the schedules already registered.
    await register(a, [{ name, pattern: '*/5 * * * *' }], clock);
    const late = captureLogger();
    await replica({ holder: 'b', clock, buckets, logger: late.logger });
    expect(late.messages).toContain(`Cron ${name} scheduled: */5 * * * * (UTC).`);
  });
});

describe('a running replica on a manual clock (time-skipping)', () => {
  it('its tick loop and lease rounds run on the test clock: each tick is emitted as the clock reaches it', async () => {
    const { buckets, name } = fresh();
    const clock = new ManualClock('2025-01-01T10:00:00.200Z');
    const scheduler = await create({ holder: 'a', clock, buckets });
    await register(scheduler, [{ name, pattern: '* * * * * *' }], clock);
    const waiting = waitForEvent(scheduler.events, 'tick:pass', {
      until: ({ leading, next }) => leading && next !== undefined,
    });
    await scheduler.start();
    expect((await waiting)[0].next?.toISOString()).toBe('2025-01-01T10:00:01.000Z');
    const renewals: number[] = [];
    scheduler.events.on('lease:renewed', ({ revision }) => renewals.push(revision));

    await clock.skip(3000, () => nextRoundOrPass(scheduler));
    expect(await scheduledAts(name)).toEqual([
      '2025-01-01T10:00:01.000Z',
      '2025-01-01T10:00:02.000Z',
      '2025-01-01T10:00:03.000Z',
    ]);
    expect(renewals).toHaveLength(3);
    expect(scheduler.isLeader()).toBe(true);
    await scheduler.stop();
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('running replicas (real timers)', () => {
  it('the leader emits on time; stop releases the lease and the other replica takes over at once', async () => {
    const { buckets, name } = fresh();
    const metricsA = new SchedulerMetrics();
    const options = { messaging, logger: silent, leaseTtlMs: 3000, tickIntervalMs: 1000, buckets };
    const a = await Scheduler.create({ ...options, holder: 'a', metrics: metricsA });
    const b = await Scheduler.create({ ...options, holder: 'b', metrics: new SchedulerMetrics() });
    await register(a, [{ name, pattern: '* * * * * *' }]);
    const aLeads = leads(a);
    await a.start();
    await aLeads;
    const bFollows = waitForEvent(b.events, 'lease:round');
    await b.start();
    await bFollows;
    const health = await startHealthServer({
      host: '127.0.0.1',
      port: 0,
      readiness: () => a.ready,
      registry: metricsA.registry,
      logger: silent,
    });
    await emitted(a, name, 2);
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    const base = `http://127.0.0.1:${health.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metricsText = await (await fetch(`${base}/metrics`)).text();
    expect(metricsText).toMatch(/^scheduler_is_leader 1$/m);
    expect(metricsText).toMatch(new RegExp(`scheduler_ticks_emitted_total\\{cron="${name}"\\} [23]`));
    await health.close();

    const stoppedAt = Date.now();
    const bLeads = leads(b, 2000);
    await a.stop();
    await bLeads;
    expect(b.isLeader()).toBe(true);
    expect(Date.now() - stoppedAt).toBeLessThan(1000);
    await emitted(b, name, 2);
    await b.stop();

    const stored = await readStoredTicks(messaging.jsm, `jobs.cron-queue.${name}`);
    const seconds = stored.map((tick) => Date.parse(tick.scheduledAt));
    expect(new Set(seconds).size).toBe(seconds.length);
    for (let i = 1; i < seconds.length; i++) expect(seconds[i] - seconds[i - 1]).toBe(1000);
    // Each tick is stored within a few hundred ms of its time.
    for (const tick of stored) expect(tick.storedAt.getTime() - Date.parse(tick.scheduledAt)).toBeLessThan(300);
  });
});
