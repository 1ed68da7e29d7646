import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import {
  createJobProducer,
  listCancellations,
  provisionJobInfrastructure,
  type CancellationRecord,
  type JobExplanation,
  type LimitedKeys,
} from '@berth/jobs';
import { runCliCaptured, type CapturedCliRun } from '../../testing';

const logger = createLogger({ service: 'cli-flow-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;
let infrastructure: Awaited<ReturnType<typeof provisionJobInfrastructure>>;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'cli-flow-test', logger });
  infrastructure = await provisionJobInfrastructure(messaging);
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

function berth(...argv: string[]): Promise<CapturedCliRun> {
  return runCliCaptured(argv, { natsUrl: server.url });
}

describe('berth jobs cancel / cancelled', () => {
  it('stores a cancellation the workers watch, and lists it', async () => {
    const cancelled = await berth('jobs', 'cancel', 'client-queue', 'job-42', '--reason', 'customer left');
    expect(cancelled.code).toBe(0);
    expect(cancelled.out).toMatch(/^QUEUE\s+JOB\s+CANCELLED AT\s+REASON$/m);
    expect(cancelled.out).toMatch(/client-queue\s+job-42\s+\S+\s+customer left/);
    expect(await listCancellations(messaging, 'client-queue')).toEqual([
      expect.objectContaining({ queue: 'client-queue', jobId: 'job-42', reason: 'customer left' }),
    ]);

    await berth('jobs', 'cancel', 'billing-queue', 'job-43');
    const json = JSON.parse((await berth('jobs', 'cancelled', '--json')).out) as CancellationRecord[];
    expect(json.map((r) => [r.queue, r.jobId])).toEqual([
      ['client-queue', 'job-42'],
      ['billing-queue', 'job-43'],
    ]);
    expect((await berth('jobs', 'cancelled', '--queue', 'billing-queue')).out).toMatch(/billing-queue\s+job-43/);
  });

  it('refuses a wrong invocation', async () => {
    const wrong = await berth('jobs', 'cancel', 'client-queue');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/give the queue and the job id/);
  });
});

describe('berth jobs limited / why', () => {
  it('lists keys at their concurrency limit with their parked jobs, and rate-limited keys', async () => {
    const slots = infrastructure.keySlots;
    const limit = { key: 'ws_busy', limit: 1 };
    expect(await slots.acquire('report-queue', limit, 'running-job', 30000)).toBe(true);
    expect(await slots.acquire('report-queue', limit, 'parked-job', 30000)).toBe(false);
    await slots.park(
      'report-queue',
      'BuildReportJob',
      limit,
      { id: 'parked-job', data: {}, retryLimit: 3, attemptsMade: 0, addedAt: new Date().toISOString() },
      'park:parked-job',
      30000,
    );
    expect(
      (await infrastructure.rateLimits.take('report-queue', { key: 'ws_rate', limit: 1, perMs: 60000 })).allowed,
    ).toBe(true);
    expect(
      (await infrastructure.rateLimits.take('report-queue', { key: 'ws_rate', limit: 1, perMs: 60000 })).allowed,
    ).toBe(false);

    const table = await berth('jobs', 'limited', '--queue', 'report-queue');
    expect(table.out).toMatch(/^QUEUE\s+KEY\s+LIMIT\s+RUNNING\s+WAITING$/m);
    expect(table.out).toMatch(/report-queue\s+ws_busy\s+1\s+1\s+1/);
    expect(table.out).toMatch(/report-queue\s+ws_rate\s+1\s+\d{4}-/);
    const json = JSON.parse((await berth('jobs', 'limited', '--json')).out) as LimitedKeys;
    expect(json.concurrency).toEqual([
      { queue: 'report-queue', key: 'ws_busy', limit: 1, running: ['running-job'], waiting: 1 },
    ]);

    const depths = JSON.parse((await berth('jobs', 'queues', '--json')).out) as { queue: string; parked: number }[];
    expect(depths.find((depth) => depth.queue === 'report-queue')?.parked).toBe(1);
    const why = JSON.parse((await berth('jobs', 'why', 'report-queue', 'parked-job', '--json')).out) as JobExplanation;
    expect(why).toMatchObject({ state: 'parked' });
    expect(why.reason).toBe('waits for a slot of concurrency key ws_busy: 1 of 1 running, 0 parked ahead of it');
  });

  it('says why a job waits: delayed, waiting for a worker, cancelled, or not found', async () => {
    const producer = createJobProducer({ messaging, logger });
    const delayed = await producer.add('why-queue', 'SomeJob', {}, { delayInMilliseconds: 3_600_000 });
    expect((await berth('jobs', 'why', 'why-queue', delayed.id)).out).toMatch(
      new RegExp(`^${delayed.id} \\(why-queue\\): delayed: waits in JOBS_DELAYED \\(delay\\) until \\d{4}-`),
    );
    await producer.add('why-queue', 'SomeJob', {});
    const second = await producer.add('why-queue', 'SomeJob', {});
    const waiting = JSON.parse((await berth('jobs', 'why', 'why-queue', second.id, '--json')).out) as JobExplanation;
    expect(waiting).toMatchObject({
      state: 'waiting',
      reason: 'waits in JOBS, and no worker of this queue has ever started (no consumer)',
    });
    await berth('jobs', 'cancel', 'why-queue', second.id);
    expect(JSON.parse((await berth('jobs', 'why', 'why-queue', second.id, '--json')).out)).toMatchObject({
      state: 'cancelled',
    });
    expect(JSON.parse((await berth('jobs', 'why', 'why-queue', 'no-such-job', '--json')).out)).toMatchObject({
      state: 'not-found',
    });
  });
});
