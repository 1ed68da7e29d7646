import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import {
  getMessageQueueToken,
  Process,
  Processor,
  UnrecoverableError,
  type JobInfo,
  type MessageQueueService,
} from '@berth/jobs';
import { sampleValue } from '@berth/metrics/testing';
import { createWorkerMetrics } from '../../../services/app-worker/src/worker-metrics';
import { captureLogs, startNats, uniqueQueue, type NatsFixture } from '../support/infra';
import { createJobsApp } from '../support/jobs-app';

const logs = captureLogs('warn');
const queue = uniqueQueue('flow-metrics');
let nats: NatsFixture;
let app: INestApplicationContext;
let metrics: ReturnType<typeof createWorkerMetrics>;
const started = new Set<string>();

type MetricsJobData = { kind: 'bad' | 'hang' | 'ok' };

@Processor({ queueName: queue })
class MetricsJob {
  @Process(MetricsJob.name)
  async handle({ kind }: MetricsJobData, info: JobInfo): Promise<void> {
    started.add(info.id);
    if (kind === 'bad') throw new UnrecoverableError('bad data');
    if (kind === 'hang')
      await new Promise((_, reject) => info.signal?.addEventListener('abort', () => reject(info.signal?.reason)));
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  metrics = createWorkerMetrics({ queues: [queue], messaging: nats.messaging, logger: logs.logger, depthCacheMs: 0 });
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    queues: [queue],
    providers: [MetricsJob],
    observer: metrics.observer,
    queueOptions: { [queue]: { concurrency: 1 } },
    shutdownGraceMs: 1000,
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

describe('worker metrics', () => {
  it('count dead letters by reason and cancellations, and report dead-letter depth, delayed jobs and the oldest waiting age', async () => {
    const jobs = app.get<MessageQueueService>(getMessageQueueToken(queue));
    const scrape = () => metrics.registry.metrics();
    expect(sampleValue(await scrape(), 'job_dead_lettered_total', { queue, reason: 'poison' })).toBe(0);

    const bad = await jobs.add<MetricsJobData>('MetricsJob', { kind: 'bad' });
    await waitFor(() => started.has(bad.id), { what: 'the bad job', timeoutMs: 5000 });
    await jobs.add<MetricsJobData>('MetricsJob', { kind: 'ok' }, { delayInMilliseconds: 3_600_000 });
    // One job holds the only slot; the next waits behind it.
    const hang = await jobs.add<MetricsJobData>('MetricsJob', { kind: 'hang' });
    await waitFor(() => started.has(hang.id), { what: 'the hanging job', timeoutMs: 5000 });
    const waiting = await jobs.add<MetricsJobData>('MetricsJob', { kind: 'ok' });
    // The waiting job's age is read against the server's time of its message: wait until it reaches a second.
    await waitFor(async () => (sampleValue(await scrape(), 'job_oldest_waiting_seconds', { queue }) ?? 0) >= 1, {
      what: 'the waiting job to be a second old',
      timeoutMs: 5000,
      intervalMs: 100,
    });

    const held = await scrape();
    expect(sampleValue(held, 'job_dead_lettered_total', { queue, reason: 'unrecoverable' })).toBe(1);
    expect(sampleValue(held, 'job_dead_letters', { queue })).toBe(1);
    expect(sampleValue(held, 'job_delayed', { queue })).toBe(1);
    expect(sampleValue(held, 'job_parked', { queue })).toBe(0);
    expect(sampleValue(held, 'job_oldest_waiting_seconds', { queue })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(held, 'job_oldest_waiting_seconds', { queue })).toBeLessThan(10);

    await jobs.cancel(hang.id);
    await waitFor(() => started.has(waiting.id), { what: 'the waiting job to run', timeoutMs: 5000 });
    const after = await scrape();
    expect(sampleValue(after, 'job_cancelled_total', { queue })).toBe(1);
    expect(sampleValue(after, 'job_oldest_waiting_seconds', { queue })).toBe(0);
    expect(sampleValue(after, 'job_completed_total', { queue, outcome: 'completed' })).toBe(1);
  }, 30000);
});
