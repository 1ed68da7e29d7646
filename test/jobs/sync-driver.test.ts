import 'reflect-metadata';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MongoClient, type Db } from 'mongodb';
import { ManualClock } from '@berth/contract/testing';
import { startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import {
  InMemoryDeadLetters,
  JobRegistry,
  MessageQueueModule,
  Process,
  Processor,
  UnrecoverableError,
  getMessageQueueToken,
  type MessageQueueService,
} from '@berth/jobs';
import { QueueWorkerModule } from '../../services/app-worker/src/queue-worker.module';
import { SendWeeklySummariesCronJob } from '../../services/app-worker/src/clients/crons/jobs/send-weekly-summaries.cron.job';
import { ApplyWorkspaceMemberLimitJob } from '../../services/app-worker/src/billing/jobs/apply-workspace-member-limit.job';
import { captureLogs, toolsBinDir } from './support/infra';

const logs = captureLogs('info');
const now = new Date('2026-11-30T08:00:00Z');
let ferret: FerretDbHandle;
let client: MongoClient;
let db: Db;
let worker: INestApplicationContext;

beforeAll(async () => {
  ferret = await startFerretDb({ binDir: toolsBinDir });
  client = await MongoClient.connect(ferret.url);
  db = client.db(`sync_driver_${process.pid}`);
  // MESSAGE_QUEUE_DRIVER=sync: no NATS anywhere in this file.
  worker = await NestFactory.createApplicationContext(
    QueueWorkerModule.register({
      config: { messageQueueDriver: 'sync', queueConcurrency: 1, shutdownGraceMs: 1000, freePlanSeatLimit: 1 },
      logger: logs.logger,
      logContext: logs.logContext,
      db,
      clock: new ManualClock(now),
    }),
    { logger: false },
  );
});
afterAll(async () => {
  await worker?.close();
  await client?.close();
  await ferret?.stop();
});

describe('the sync driver runs a job inside the add that queues it', () => {
  it('runs the weekly summaries cron by adding its job to the cron queue, summary jobs included', async () => {
    await db.collection('workspaces').insertMany([
      { _id: 'ws-1' as never, name: 'One' },
      { _id: 'ws-2' as never, name: 'Two' },
      { _id: 'ws-3' as never, name: 'Gone', deletedAt: now },
    ]);
    await db.collection('clients').insertOne({ _id: 'c1' as never, workspaceId: 'ws-1', name: 'A', createdAt: now });

    await worker.get<MessageQueueService>(getMessageQueueToken('cron-queue')).add(SendWeeklySummariesCronJob.name, {});

    const summaries = await db.collection('clientSummaries').find().sort({ _id: 1 }).toArray();
    expect(summaries.map((summary) => summary._id)).toEqual(['ws-1:2026-W49', 'ws-2:2026-W49']);
    expect(summaries[0]).toMatchObject({ clientCount: 1, newClientCount: 1 });

    // A second tick the same week changes nothing.
    await worker.get<MessageQueueService>(getMessageQueueToken('cron-queue')).add(SendWeeklySummariesCronJob.name, {});
    expect(await db.collection('clientSummaries').countDocuments()).toBe(2);
  });

  it('applies the member limit when the billing job is added', async () => {
    await db.collection('workspaces').insertOne({
      _id: 'ws-billing' as never,
      name: 'B',
      billing: { subscriptions: [{ id: 'sub', status: 'active', items: [{ quantity: 1 }] }] },
    });
    await db.collection('workspaceMembers').insertMany([
      { _id: 'm1' as never, workspaceId: 'ws-billing', userId: 'u1', role: 'owner', joinedAt: new Date('2026-01-01') },
      { _id: 'm2' as never, workspaceId: 'ws-billing', userId: 'u2', role: 'member', joinedAt: new Date('2026-01-02') },
    ]);
    await worker
      .get<MessageQueueService>(getMessageQueueToken('billing-queue'))
      .add(ApplyWorkspaceMemberLimitJob.name, { workspaceId: 'ws-billing' }, { deduplicationId: 'ws-billing' });
    expect(await db.collection('workspaceMembers').findOne({ _id: 'm2' as never })).toMatchObject({ suspended: true });
    const line = logs.lines.find((entry) => String(entry.msg).startsWith('Member limit 1 applied'));
    expect(line).toMatchObject({ jobName: 'ApplyWorkspaceMemberLimitJob', queue: 'billing-queue', attempt: 1 });
  });

  it('exports the crons it found for the scheduler', () => {
    expect(worker.get(JobRegistry).crons()).toEqual([
      {
        name: 'SendWeeklySummariesCronJob',
        pattern: '0 8 * * 1',
        timeZone: 'UTC',
        queue: 'cron-queue',
        className: 'SendWeeklySummariesCronJob',
      },
    ]);
  });
});

describe('sync driver failures', () => {
  const calls = new Map<string, number>();
  let app: INestApplicationContext;

  @Processor({ queueName: 'sync-test' })
  class FailingJob {
    @Process('FailingJob')
    async handle({ key, failTimes, fatal }: { key: string; failTimes: number; fatal?: boolean }): Promise<void> {
      const count = (calls.get(key) ?? 0) + 1;
      calls.set(key, count);
      if (fatal) throw new UnrecoverableError('never');
      if (count <= failTimes) throw new Error(`failure ${count}`);
    }
  }

  beforeAll(async () => {
    @Module({
      imports: [
        MessageQueueModule.forRoot({
          driver: 'sync',
          logger: logs.logger,
          logContext: logs.logContext,
          queues: ['sync-test'],
        }),
      ],
      providers: [FailingJob],
    })
    class SyncTestModule {}
    app = await NestFactory.createApplicationContext(SyncTestModule, { logger: false });
  });
  afterAll(() => app?.close());
  const queue = () => app.get<MessageQueueService>(getMessageQueueToken('sync-test'));

  it('retries at once up to retryLimit, then records a dead letter and rejects', async () => {
    await queue().add('FailingJob', { key: 'flaky', failTimes: 2 });
    expect(calls.get('flaky')).toBe(3);
    await expect(queue().add('FailingJob', { key: 'down', failTimes: 10 }, { retryLimit: 2 })).rejects.toThrow(
      'failure 3',
    );
    expect(calls.get('down')).toBe(3);
    await expect(queue().add('FailingJob', { key: 'fatal', failTimes: 0, fatal: true })).rejects.toThrow(
      UnrecoverableError,
    );
    expect(calls.get('fatal')).toBe(1);
    expect(
      app
        .get(InMemoryDeadLetters)
        .list()
        .map((letter) => [letter.reason, letter.attempts, (letter.data as { key: string }).key]),
    ).toEqual([
      ['exhausted', 3, 'down'],
      ['unrecoverable', 1, 'fatal'],
    ]);
  });

  it('rejects a job no provider runs', async () => {
    await expect(queue().add('NoSuchJob', {})).rejects.toThrow('No @Process("NoSuchJob") on queue sync-test');
  });
});
