/**
 * The scheduler process as deployed (`main.ts`): it starts with MongoDB unreachable (the platform crons connect on
 * first use), registers the platform crons with owner `scheduler` on their own queue, and exits 0 on SIGTERM.
 */
import { join } from 'node:path';
import {
  defaultToolsBinDir,
  spawnManaged,
  startNatsServer,
  type ManagedProcess,
  type NatsServerHandle,
} from '@berth/local-infra';
import { openCronBuckets, readCronSchedules } from '@berth/cron';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';

let nats: NatsServerHandle;
let messaging: Messaging;
let scheduler: ManagedProcess | undefined;

beforeAll(async () => {
  nats = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({
    servers: nats.url,
    name: 'scheduler-main-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
});
afterAll(async () => {
  await scheduler?.stop(2000);
  await messaging?.close();
  await nats?.stop();
});

it('starts without MongoDB, registers the platform crons, and exits 0 on SIGTERM', async () => {
  scheduler = spawnManaged({
    command: process.execPath,
    args: ['-r', join(__dirname, '..', '..', '..', 'deploy', 'runtime', 'ts-hook.js'), join(__dirname, 'main.ts')],
    cwd: join(__dirname, '..', '..', '..'),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'test',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      NATS_URL: nats.url,
      MONGO_URL: 'mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=500',
      HEALTH_PORT: '0',
      HEALTH_HOST: '127.0.0.1',
      SCHEDULER_LEASE_TTL_MS: '3000',
      STREAM_REPLICAS: '1',
    },
  });
  await scheduler.waitForLine(/"msg":"Scheduler ready"/, 45000);
  await scheduler.waitForLine(
    /"owner":"scheduler".*"msg":"Cron WebhookRecoveryCronJob scheduled: \*\/10 \* \* \* \* \(UTC\)\."/,
    1000,
  );
  await scheduler.waitForLine(
    /"owner":"scheduler".*"msg":"Cron WebhookRetentionCronJob scheduled: 30 3 \* \* \* \(UTC\)\."/,
    1000,
  );
  await scheduler.waitForLine(
    /"msg":"Queue platform-cron-queue: running WebhookRecoveryCronJob, WebhookRetentionCronJob/,
    1000,
  );

  const schedules = await readCronSchedules((await openCronBuckets(messaging.js)).schedules);
  expect(
    [...schedules.values()].map(({ schedule }) => [schedule.name, schedule.pattern, schedule.queue, schedule.owner]),
  ).toEqual([
    ['WebhookRecoveryCronJob', '*/10 * * * *', 'platform-cron-queue', 'scheduler'],
    ['WebhookRetentionCronJob', '30 3 * * *', 'platform-cron-queue', 'scheduler'],
  ]);

  scheduler.child.kill('SIGTERM');
  expect(await scheduler.exited).toEqual({ code: 0, signal: null });
}, 60000);
