import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { registerCronSchedules } from '@berth/cron';
import { SchedulerMetrics } from './metrics';
import { Scheduler } from './scheduler';
import { readStoredTicks } from './test-support/stored-ticks';

const silent = createLogger({ service: 'scheduler-test', level: process.env.DEBUG_SCHEDULER ? 'debug' : 'silent' });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
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
  const scheduler = await Scheduler.create({ messaging, logger: silent, metrics: new SchedulerMetrics(), holder: 'a', leaseTtlMs: 3000, tickIntervalMs: 1000 });
  await registerCronSchedules({ buckets: scheduler.buckets, owner: 'worker', definitions: [{ name: 'RestartCronJob', pattern: '* * * * * *' }], logger: silent });
  await scheduler.start();
  await sleep(2500);
  expect(scheduler.isLeader()).toBe(true);
  expect(scheduler.ready).toBe(true);

  const down = server.kill();
  await sleep(300);
  expect(scheduler.ready).toBe(false);
  await down;
  await sleep(1500);
  const restartedAt = Date.now();
  await server.restart();
  const stored = async (): Promise<number[]> => (await readStoredTicks(messaging.jsm, 'jobs.cron-queue.RestartCronJob')).map((tick) => Date.parse(tick.scheduledAt));
  let resumedMs = -1;
  for (let i = 0; i < 150; i++) {
    const ticks = await stored().catch(() => []);
    if (ticks.some((ms) => ms > restartedAt)) {
      resumedMs = Date.now() - restartedAt;
      break;
    }
    await sleep(100);
  }
  expect(scheduler.ready).toBe(true);
  expect(resumedMs).toBeGreaterThan(0);
  expect(resumedMs).toBeLessThan(10_000);
  await sleep(2000);
  expect(scheduler.isLeader()).toBe(true);
  await scheduler.stop();

  const seconds = await stored();
  expect(new Set(seconds).size).toBe(seconds.length);
  for (let i = 1; i < seconds.length; i++) expect(seconds[i] - seconds[i - 1]).toBe(1000);
  expect(seconds.length).toBeGreaterThanOrEqual(8);
}, 30_000);
