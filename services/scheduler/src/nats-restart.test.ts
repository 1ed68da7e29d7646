import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { holdFault, waitFor, waitForEvent, waitForEvents } from '@berth/local-infra/testing';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { registerCronSchedules } from '@berth/cron';
import { SchedulerMetrics } from './metrics';
import { Scheduler } from './scheduler';
import { readStoredTicks } from './test-support/stored-ticks';

const silent = createLogger({ service: 'scheduler-test', level: process.env.DEBUG_SCHEDULER ? 'debug' : 'silent' });
/** How long nats-server stays down: the ticks due meanwhile must be emitted late, once each. */
const OUTAGE_MS = 1500;
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'scheduler-restart-test', logger: silent });
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

test('a NATS restart: not ready while disconnected, then leads again and the ticks of the outage are emitted late, once each', async () => {
  const scheduler = await Scheduler.create({
    messaging,
    logger: silent,
    metrics: new SchedulerMetrics(),
    holder: 'a',
    leaseTtlMs: 3000,
    tickIntervalMs: 1000,
  });
  await registerCronSchedules({
    buckets: scheduler.buckets,
    owner: 'worker',
    definitions: [{ name: 'RestartCronJob', pattern: '* * * * * *' }],
    logger: silent,
  });
  const ticks = (count: number, until: (tick: Date) => boolean = () => true) =>
    waitForEvents(scheduler.events, 'tick:emitted', count, { until: ({ tick }) => until(tick), timeoutMs: 15_000 });
  const leading = waitForEvent(scheduler.events, 'lease:change', { until: (event) => event.leading });
  const firstTicks = ticks(3);
  await scheduler.start();
  await leading;
  await firstTicks;
  expect(scheduler.isLeader()).toBe(true);
  expect(scheduler.ready).toBe(true);

  const down = server.kill();
  await waitFor(() => !scheduler.ready, { timeoutMs: 300, intervalMs: 10, what: 'the scheduler to report not ready' });
  expect(scheduler.ready).toBe(false);
  await down;
  await holdFault(OUTAGE_MS, 'nats-server stays down while ticks fall due');
  const restartedAt = Date.now();
  const resumed = ticks(1, (tick) => tick.getTime() > restartedAt);
  await server.restart();
  await resumed;
  const resumedMs = Date.now() - restartedAt;
  const stored = async (): Promise<number[]> =>
    (await readStoredTicks(messaging.jsm, 'jobs.cron-queue.RestartCronJob')).map((tick) =>
      Date.parse(tick.scheduledAt),
    );
  expect(scheduler.ready).toBe(true);
  expect(resumedMs).toBeGreaterThan(0);
  expect(resumedMs).toBeLessThan(10_000);
  await ticks(2);
  expect(scheduler.isLeader()).toBe(true);
  await scheduler.stop();

  const seconds = await stored();
  expect(new Set(seconds).size).toBe(seconds.length);
  for (let i = 1; i < seconds.length; i++) expect(seconds[i] - seconds[i - 1]).toBe(1000);
  expect(seconds.length).toBeGreaterThanOrEqual(8);
}, 30_000);
