import 'reflect-metadata';
import { Writable } from 'node:stream';
import { NestFactory } from '@nestjs/core';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { waitFor } from '@berth/local-infra/testing';
import { cronTickMessage, openCronBuckets, readCronSchedules, type CronBuckets } from '@berth/cron';
import { getMessageQueueToken, JobRegistry, type MessageQueueService } from '@berth/jobs';
import { createLogger, LogContextStore } from '@berth/logger';
import { connectMessaging, publishMessage, type Messaging } from '@berth/messaging';
import { WebhookRecoveryCronJob } from './jobs/webhook-recovery.cron.job';
import { WebhookRetentionCronJob } from './jobs/webhook-retention.cron.job';
import { PlatformCronsModule } from './platform-crons.module';
import { PLATFORM_CRON_QUEUE, type WebhookInboxOperations } from './platform-crons.tokens';
import { startPlatformCrons, type RunningPlatformCrons } from './start-platform-crons';

type Line = Record<string, unknown> & { msg: string };
const silent = createLogger({ service: 'scheduler', level: 'silent' });

/** Inbox operations that count their calls. */
function countingOperations(): WebhookInboxOperations & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async recoverWebhookEvents() {
      calls.push('recover');
      return { requeued: 2, abandoned: 0 };
    },
    async deleteExpiredWebhookEvents() {
      calls.push('retention');
      return { deleted: 5 };
    },
  };
}

function capture(): { lines: Line[]; destination: Writable } {
  const lines: Line[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, destination };
}

/** True once no consumer of JOBS has a message left to deliver or an unacknowledged one: every delivery was handled. */
async function jobsConsumersIdle(messaging: Messaging): Promise<boolean> {
  for await (const consumer of messaging.jsm.consumers.list('JOBS'))
    if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) return false;
  return true;
}

describe('platform crons (sync driver)', () => {
  it('runs the recovery once when its job is added to the platform cron queue, and the retention likewise', async () => {
    const operations = countingOperations();
    const { lines, destination } = capture();
    const logContext = new LogContextStore();
    const logger = createLogger({ service: 'scheduler', level: 'info', context: logContext, destination });
    const app = await NestFactory.createApplicationContext(
      PlatformCronsModule.register({ driver: 'sync', logger, logContext, operations }),
      { logger: false },
    );
    expect(app.get(JobRegistry).crons()).toEqual([
      {
        name: 'WebhookRecoveryCronJob',
        pattern: '*/10 * * * *',
        timeZone: 'UTC',
        queue: PLATFORM_CRON_QUEUE,
        className: 'WebhookRecoveryCronJob',
      },
      {
        name: 'WebhookRetentionCronJob',
        pattern: '30 3 * * *',
        timeZone: 'UTC',
        queue: PLATFORM_CRON_QUEUE,
        className: 'WebhookRetentionCronJob',
      },
    ]);

    const queue = app.get<MessageQueueService>(getMessageQueueToken(PLATFORM_CRON_QUEUE));
    await queue.add(WebhookRecoveryCronJob.name, {});
    expect(operations.calls).toEqual(['recover']);
    expect(lines.find((line) => line.msg === 'Webhook recovery done')).toMatchObject({
      requeued: 2,
      abandoned: 0,
      jobName: 'WebhookRecoveryCronJob',
      queue: PLATFORM_CRON_QUEUE,
    });

    await queue.add(WebhookRetentionCronJob.name, {});
    expect(operations.calls).toEqual(['recover', 'retention']);
    expect(lines.find((line) => line.msg === 'Webhook retention done')).toMatchObject({
      deleted: 5,
      jobName: 'WebhookRetentionCronJob',
    });
    await app.close();
  });
});

describe('platform crons on JetStream (startPlatformCrons)', () => {
  let server: NatsServerHandle;
  let messaging: Messaging;
  let buckets: CronBuckets;
  let running: RunningPlatformCrons | undefined;

  beforeAll(async () => {
    server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
    messaging = await connectMessaging({ servers: server.url, name: 'platform-crons-test', logger: silent });
    buckets = await openCronBuckets(messaging.js);
  });
  afterAll(async () => {
    await running?.stop();
    await messaging?.close();
    await server?.stop();
  });

  it('registers the platform crons with owner scheduler, and runs the recovery once per tick', async () => {
    const operations = countingOperations();
    const { lines, destination } = capture();
    const logger = createLogger({ service: 'scheduler', level: 'info', destination });
    running = await startPlatformCrons({
      messaging,
      logger,
      buckets,
      holder: 'scheduler-a',
      operations,
      shutdownGraceMs: 2000,
    });

    expect(running.registration).toEqual({
      added: ['WebhookRecoveryCronJob', 'WebhookRetentionCronJob'],
      updated: [],
      unchanged: [],
      removed: [],
    });
    const stored = await readCronSchedules(buckets.schedules);
    expect(stored.get('WebhookRecoveryCronJob')?.schedule).toMatchObject({
      pattern: '*/10 * * * *',
      timeZone: 'UTC',
      queue: PLATFORM_CRON_QUEUE,
      owner: 'scheduler',
    });
    expect(stored.get('WebhookRetentionCronJob')?.schedule).toMatchObject({
      pattern: '30 3 * * *',
      timeZone: 'UTC',
      queue: PLATFORM_CRON_QUEUE,
      owner: 'scheduler',
    });
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        'Cron WebhookRecoveryCronJob scheduled: */10 * * * * (UTC).',
        'Cron WebhookRetentionCronJob scheduled: 30 3 * * * (UTC).',
      ]),
    );

    // A tick as the scheduler's leader emits it; JetStream stores it once even if two leaders emit it.
    const tick = cronTickMessage(stored.get('WebhookRecoveryCronJob')!.schedule, new Date('2026-03-02T08:10:00.000Z'));
    expect(tick.subject).toBe(`jobs.${PLATFORM_CRON_QUEUE}.WebhookRecoveryCronJob`);
    await publishMessage(messaging.js, tick);
    await publishMessage(messaging.js, tick);
    await waitFor(() => lines.some((line) => line.msg === 'Webhook recovery done'), { what: 'the recovery to run' });
    await waitFor(() => jobsConsumersIdle(messaging), { what: 'the JOBS consumers to have handled every delivery' });
    expect(operations.calls).toEqual(['recover']);

    // A product cron's tick (cron-queue) is not this worker's: it waits for app-worker.
    await publishMessage(messaging.js, {
      subject: 'jobs.cron-queue.SendWeeklySummariesCronJob',
      data: JSON.stringify({ scheduledAt: '2026-03-02T08:00:00.000Z' }),
      expectedStream: 'JOBS',
    });
    await waitFor(() => jobsConsumersIdle(messaging), { what: 'the JOBS consumers to have handled every delivery' });
    const jobs = await messaging.jsm.streams.info('JOBS', { subjects_filter: 'jobs.cron-queue.>' });
    expect(jobs.state.subjects?.['jobs.cron-queue.SendWeeklySummariesCronJob']).toBe(1);

    // A second start (another replica, or the next deploy) changes nothing.
    const again = await startPlatformCrons({
      messaging,
      logger: silent,
      buckets,
      holder: 'scheduler-b',
      operations,
      shutdownGraceMs: 2000,
    });
    expect(again.registration).toEqual({
      added: [],
      updated: [],
      unchanged: ['WebhookRecoveryCronJob', 'WebhookRetentionCronJob'],
      removed: [],
    });
    await again.stop();
  }, 60000);
});
