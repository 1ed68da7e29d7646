/**
 * billing-sync → app-worker, on real nats-server and FerretDB with the Stripe stand-in: after a subscription change
 * is synced, billing-sync (run as `main.ts` runs it, `runBillingSync`) queues `ApplyWorkspaceMemberLimitJob
 * { workspaceId }` on `billing-queue` with `deduplicationId: workspaceId`.
 *
 * - Two quick subscription events for one workspace, no worker running: one job waits on JOBS.
 * - app-worker starts: the job runs and the member limit is applied.
 * - The job has finished, so the next change queues a new one (deduplication is state-based, not a window).
 *
 * nats-server runs Berth's NATS users: billing-sync and the worker connect as their own, the test as the operator,
 * and nothing may be refused.
 *
 * Services don't import each other: billing-sync spells the queue and job name, and this test keeps them in step
 * with app-worker's class and contract.
 */
import { waitFor } from '@berth/local-infra/testing';
import { MongoClient, type Db } from 'mongodb';
import { Writable } from 'node:stream';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { inboxCollections, waitForInboxEvent } from '@berth/inbox';
import { publishTestWebhook } from '@berth/inbox/testing';
import { JOBS_STREAM_NAME, jobSubject, type JobRecord } from '@berth/jobs';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import * as workerContract from '../../services/app-worker/src/billing/billing-queue.contract';
import { ApplyWorkspaceMemberLimitJob } from '../../services/app-worker/src/billing/jobs/apply-workspace-member-limit.job';
import { loadAppWorkerConfig } from '../../services/app-worker/src/config';
import { startQueueWorker, type RunningQueueWorker } from '../../services/app-worker/src/start-queue-worker';
import { APPLY_WORKSPACE_MEMBER_LIMIT_JOB, BILLING_QUEUE, loadConfig } from '../../services/billing-sync/src/index';
import { runBillingSync, type RunningBillingSync } from '../../services/billing-sync/src/run-billing-sync';
import { StripeStandIn } from '../support/stripe-stand-in';
import { startNatsWithUsers, type NatsWithUsers } from '../support/nats-with-users';

const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
const SUBJECT = jobSubject(BILLING_QUEUE, APPLY_WORKSPACE_MEMBER_LIMIT_JOB);

let nats: NatsWithUsers;
let ferret: FerretDbHandle;
let standIn: StripeStandIn;
let mongo: MongoClient;
let db: Db;
let messaging: Messaging;
let billingSync: RunningBillingSync | undefined;
let worker: RunningQueueWorker | undefined;
const workerLines: Array<Record<string, unknown> & { msg: string }> = [];

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNatsWithUsers({ binDir }), startFerretDb({ binDir })]);
  standIn = new StripeStandIn();
  await standIn.start();
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`billing_member_limit_${process.pid}`);
  messaging = await connectMessaging({
    servers: nats.urlAs('operator'),
    name: 'billing-member-limit-test',
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
  billingSync = await runBillingSync(
    loadConfig({
      NODE_ENV: 'test',
      NATS_URL: nats.urlAs('billing-sync'),
      MONGO_URL: ferret.url,
      MONGO_DB: db.databaseName,
      LOG_LEVEL: 'warn',
      HEALTH_PORT: '0',
      HEALTH_HOST: '127.0.0.1',
      STRIPE_SECRET_KEY: 'sk_test_standin',
      STRIPE_API_BASE: standIn.url,
      SHUTDOWN_GRACE_MS: '5000',
    }),
  );
}, 60000);

afterAll(async () => {
  await worker?.stop().catch(() => undefined);
  await billingSync?.stop().catch(() => undefined);
  await messaging?.close();
  await mongo?.close();
  await standIn?.stop();
  await Promise.all([ferret?.stop(), nats?.stop()]);
});

function subscriptionEvent(eventId: string, customer: string) {
  return {
    provider: 'stripe',
    eventId,
    type: 'customer.subscription.updated',
    body: {
      id: eventId,
      object: 'event',
      type: 'customer.subscription.updated',
      data: { object: { id: 'sub_team', object: 'subscription', customer } },
    },
  };
}

/** Messages waiting on the job's subject, and the jobs they carry. */
async function waitingJobs(): Promise<{ messages: number; records: JobRecord[] }> {
  const info = await messaging.jsm.streams.info(JOBS_STREAM_NAME, { subjects_filter: SUBJECT });
  const messages = info.state.subjects?.[SUBJECT] ?? 0;
  if (messages === 0) return { messages, records: [] };
  const stored = await messaging.jsm.streams.getMessage(JOBS_STREAM_NAME, { last_by_subj: SUBJECT });
  return { messages, records: stored!.json<JobRecord[]>() };
}

describe('billing-sync queues ApplyWorkspaceMemberLimitJob after a subscription change', () => {
  it('spells the queue and job name app-worker runs', () => {
    expect(BILLING_QUEUE).toBe(workerContract.BILLING_QUEUE);
    expect(APPLY_WORKSPACE_MEMBER_LIMIT_JOB).toBe(workerContract.APPLY_WORKSPACE_MEMBER_LIMIT_JOB);
    expect(APPLY_WORKSPACE_MEMBER_LIMIT_JOB).toBe(ApplyWorkspaceMemberLimitJob.name);
  });

  it('queues one job for two quick changes of one workspace while it waits; the worker then applies the limit', async () => {
    await db.collection('workspaces').insertOne({
      _id: 'org_team' as never,
      name: 'Team',
      billing: { customerId: 'cus_team', subscriptions: [], status: 'none', syncedAt: new Date(0) },
    });
    await db.collection('workspaceMembers').insertMany(
      ['a', 'b', 'c'].map((user, i) => ({
        _id: `m-${user}` as never,
        workspaceId: 'org_team',
        userId: user,
        role: 'member',
        joinedAt: new Date(Date.UTC(2026, 0, i + 1)),
      })),
    );
    standIn.setSubscriptions('cus_team', [
      { id: 'sub_team', status: 'active', items: [{ priceId: 'price_team', quantity: 2 }] },
    ]);

    await Promise.all([
      publishTestWebhook(messaging.js, subscriptionEvent('evt_team_1', 'cus_team')),
      publishTestWebhook(messaging.js, subscriptionEvent('evt_team_2', 'cus_team')),
    ]);
    const inbox = inboxCollections(db);
    await Promise.all(
      ['stripe:evt_team_1', 'stripe:evt_team_2'].map((key) => waitForInboxEvent({ inbox, key, timeoutMs: 20000 })),
    );
    expect(standIn.requestCount('/v1/subscriptions', { customer: 'cus_team' })).toBe(2);

    const waiting = await waitingJobs();
    expect(waiting.messages).toBe(1);
    expect(waiting.records).toHaveLength(1);
    expect(waiting.records[0]).toMatchObject({
      data: { workspaceId: 'org_team' },
      deduplicationId: 'org_team',
      attemptsMade: 0,
    });
    // Nothing ran it yet.
    expect(await db.collection('workspaceMembers').countDocuments({ workspaceId: 'org_team', suspended: true })).toBe(
      0,
    );

    worker = await startQueueWorker(
      loadAppWorkerConfig({
        NATS_URL: nats.urlAs('app-worker'),
        MONGO_URL: ferret.url,
        MONGO_DB: db.databaseName,
        LOG_LEVEL: 'info',
        HEALTH_PORT: '0',
        HEALTH_HOST: '127.0.0.1',
        WORKER_SHUTDOWN_GRACE_MS: '5000',
      }),
      {
        logDestination: new Writable({
          write(chunk, _encoding, done) {
            for (const line of String(chunk).split('\n')) if (line.trim()) workerLines.push(JSON.parse(line));
            done();
          },
        }),
      },
    );
    const applied = await waitFor(() => workerLines.find((line) => line.msg.startsWith('Member limit 2 applied')), {
      what: 'the member limit applied',
      timeoutMs: 15000,
    });
    expect(applied).toMatchObject({
      jobName: 'ApplyWorkspaceMemberLimitJob',
      queue: 'billing-queue',
      workspaceId: 'org_team',
      suspended: 1,
      jobId: waiting.records[0].id,
    });
    expect(await db.collection('workspaceMembers').findOne({ _id: 'm-c' as never })).toMatchObject({
      suspended: true,
      suspendedReason: 'seat-limit',
    });
    await waitFor(async () => (await waitingJobs()).messages === 0, { what: 'the job acked', timeoutMs: 5000 });
  }, 90000);

  it('queues a new job for the next change once the previous one has finished', async () => {
    standIn.setSubscriptions('cus_team', [
      { id: 'sub_team', status: 'active', items: [{ priceId: 'price_team', quantity: 3 }] },
    ]);
    await publishTestWebhook(messaging.js, subscriptionEvent('evt_team_3', 'cus_team'));
    await waitFor(() => workerLines.find((line) => line.msg.startsWith('Member limit 3 applied')), {
      what: 'the new limit applied',
      timeoutMs: 20000,
    });
    expect(await db.collection('workspaceMembers').findOne({ _id: 'm-c' as never })).toMatchObject({
      suspended: false,
    });
    expect(workerLines.filter((line) => /^Member limit \d+ applied/.test(line.msg))).toHaveLength(2);
  }, 60000);
});
