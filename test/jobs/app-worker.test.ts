import { waitFor } from '@berth/local-infra/testing';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { spawnManaged, startFerretDb, type FerretDbHandle, type ManagedProcess } from '@berth/local-infra';
import { createJobProducer, CRON_QUEUE_NAME } from '@berth/jobs';
import { connectMessaging, type Messaging } from '@berth/messaging';
import {
  BILLING_QUEUE,
  queueApplyWorkspaceMemberLimit,
} from '../../services/app-worker/src/billing/billing-queue.contract';
import { captureLogs, toolsBinDir } from './support/infra';
import { startNatsWithUsers, type NatsWithUsers } from '../support/nats-with-users';

const logs = captureLogs('warn');
/** nats-server with Berth's NATS users: the worker as app-worker, the ticks as the scheduler, the job as billing-sync. */
let nats: NatsWithUsers;
const connections: Messaging[] = [];
let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
let worker: ManagedProcess | undefined;

beforeAll(async () => {
  [nats, ferret] = await Promise.all([
    startNatsWithUsers({ binDir: toolsBinDir }),
    startFerretDb({ binDir: toolsBinDir }),
  ]);
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`app_worker_${process.pid}`);
});
afterAll(async () => {
  await worker?.stop(2000).catch(() => undefined);
  await mongo?.close();
  await Promise.all(connections.map((connection) => connection.close()));
  await Promise.all([nats?.stop(), ferret?.stop()]);
});

describe('services/app-worker on JetStream', () => {
  it('starts, runs the weekly summaries cron and the member-limit job, and exits 0 on SIGTERM', async () => {
    await db
      .collection('workspaces')
      .insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: `ws-${i}` as never, name: `Workspace ${i}` })));
    await db.collection('workspaces').insertOne({
      _id: 'ws-paid' as never,
      name: 'Paid',
      billing: { subscriptions: [{ id: 'sub_1', status: 'active', items: [{ quantity: 2 }] }] },
    });
    await db.collection('workspaceMembers').insertMany(
      ['a', 'b', 'c'].map((user, i) => ({
        _id: `m-${user}` as never,
        workspaceId: 'ws-paid',
        userId: user,
        role: 'member',
        joinedAt: new Date(Date.UTC(2026, 0, i + 1)),
      })),
    );

    worker = spawnManaged({
      command: process.execPath,
      args: [
        '-r',
        join(__dirname, '..', '..', 'deploy', 'runtime', 'ts-hook.js'),
        join(__dirname, '..', '..', 'services', 'app-worker', 'src', 'main.ts'),
      ],
      env: {
        ...process.env,
        NATS_URL: nats.urlAs('app-worker'),
        MONGO_URL: ferret.url,
        MONGO_DB: db.databaseName,
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'info',
        HEALTH_PORT: '0',
        HEALTH_HOST: '127.0.0.1',
      },
    });
    const [ready] = await worker.waitForLine(/^{.*"Queue worker ready".*}$/, 30000);
    const health = `http://127.0.0.1:${JSON.parse(ready).healthPort}`;
    expect((await fetch(`${health}/readyz`)).status).toBe(200);

    const as = async (user: 'scheduler' | 'billing-sync'): Promise<Messaging> => {
      const connection = await connectMessaging({
        servers: nats.urlAs(user),
        name: `app-worker-test-${user}`,
        logger: logs.logger,
      });
      connections.push(connection);
      return connection;
    };
    // The tick, as the scheduler emits it.
    const ticks = createJobProducer({ messaging: await as('scheduler'), logger: logs.logger });
    await ticks.add(CRON_QUEUE_NAME, 'SendWeeklySummariesCronJob', {});
    await waitFor(async () => (await db.collection('clientSummaries').countDocuments()) === 31, {
      what: '31 summaries',
      timeoutMs: 15000,
    });

    // The member-limit job, as billing-sync queues it.
    const producer = createJobProducer({ messaging: await as('billing-sync'), logger: logs.logger });
    await queueApplyWorkspaceMemberLimit(
      { add: (name, data, options) => producer.add(BILLING_QUEUE, name, data, options) },
      'ws-paid',
    );
    const [line] = await worker.waitForLine(/^{.*"Member limit 2 applied.*}$/, 10000);
    expect(JSON.parse(line)).toMatchObject({
      jobName: 'ApplyWorkspaceMemberLimitJob',
      queue: 'billing-queue',
      attempt: 1,
      workspaceId: 'ws-paid',
      suspended: 1,
    });
    expect(typeof JSON.parse(line).jobId).toBe('string');
    expect(await db.collection('workspaceMembers').findOne({ _id: 'm-c' as never })).toMatchObject({
      suspended: true,
      suspendedReason: 'seat-limit',
    });

    const metrics = await (await fetch(`${health}/metrics`)).text();
    expect(metrics).toContain('job_completed_total{queue="client-queue",outcome="completed"} 31');
    expect(metrics).toContain('job_enqueued_total{queue="client-queue"} 31');
    expect(metrics).toMatch(/queue_depth{queue="client-queue",state="pending"} 0/);
    expect(metrics).toContain('job_duration_seconds_bucket');

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });
  }, 60000);
});
