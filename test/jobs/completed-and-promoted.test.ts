/**
 * A worker's completed jobs in `JOBS_COMPLETED` (recorded before the job's message is acked, with the attempt that
 * succeeded, and what `explainJob` says of them), and `MessageQueueService.promote` running a delayed job now, through a real worker.
 */
import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import {
  Process,
  Processor,
  explainJob,
  getMessageQueueToken,
  listCompletedJobs,
  type MessageQueueService,
  type StoredCompletedJob,
} from '@berth/jobs';
import { captureLogs, startNats, uniqueQueue, waitForQueueSettled, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const logs = captureLogs('warn');
let nats: NatsFixture;
let app: INestApplicationContext;
const queue = uniqueQueue('completed');
const runs = new Map<string, number>();
/** Keys whose first attempt fails. */
const failFirst = new Set<string>();

type ReportData = { key: string };

@Processor({ queueName: queue })
class ReportJob {
  @Process(ReportJob.name)
  async handle({ key }: ReportData): Promise<void> {
    const attempt = (runs.get(key) ?? 0) + 1;
    runs.set(key, attempt);
    if (failFirst.has(key) && attempt === 1) throw new Error(`report store down (${key})`);
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    logContext: logs.logContext,
    queues: [queue],
    providers: [ReportJob],
    queueOptions: { [queue]: { backoff: { baseDelayMs: 50, jitter: 0 } } },
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

const queueService = () => app.get<MessageQueueService>(getMessageQueueToken(queue));
const completedOf = async (jobId: string): Promise<StoredCompletedJob | undefined> =>
  (await listCompletedJobs(nats.messaging, queue)).find((job) => job.jobId === jobId);

describe('completed jobs and promote (JetStream worker)', () => {
  it('records a completed job before acking its message: data, the attempt that succeeded, duration', async () => {
    const first = await queueService().add<ReportData>(ReportJob.name, { key: 'once' });
    await waitForQueueSettled(nats.messaging, queue);
    // Acked, so recorded already: no wait.
    expect(await completedOf(first.id)).toMatchObject({
      queue,
      name: ReportJob.name,
      jobId: first.id,
      data: { key: 'once' },
      attempt: 1,
      outcome: 'completed',
      durationMs: expect.any(Number),
      completedAt: expect.any(String),
    });

    failFirst.add('retried');
    const retried = await queueService().add<ReportData>(ReportJob.name, { key: 'retried' });
    const record = await waitFor(() => completedOf(retried.id), { what: 'the retried job to complete' });
    expect(record).toMatchObject({ attempt: 2, data: { key: 'retried' } });
    expect(runs.get('retried')).toBe(2);
  });

  it('explains a completed job from its record: when, on which attempt, how long', async () => {
    failFirst.add('explained');
    const job = await queueService().add<ReportData>(ReportJob.name, { key: 'explained' });
    const record = await waitFor(() => completedOf(job.id), { what: 'the job to complete' });
    expect(await explainJob(nats.messaging, queue, job.id)).toEqual({
      queue,
      jobId: job.id,
      state: 'completed',
      reason: `completed at ${record!.completedAt} on attempt 2 of ${record!.retryLimit + 1}, in ${record!.durationMs} ms`,
    });
    expect(await explainJob(nats.messaging, queue, 'no-such-job')).toMatchObject({ state: 'not-found' });
  });

  it('promote runs a job delayed by an hour now, once; a second promote changes nothing', async () => {
    const delayed = await queueService().add<ReportData>(
      ReportJob.name,
      { key: 'promoted' },
      { delayInMilliseconds: 3_600_000 },
    );
    expect(runs.has('promoted')).toBe(false);
    expect(await queueService().promote(delayed.id)).toMatchObject({ promoted: true, name: ReportJob.name });
    const record = await waitFor(() => completedOf(delayed.id), { what: 'the promoted job to complete' });
    expect(record).toMatchObject({ attempt: 1, data: { key: 'promoted' } });
    expect(await queueService().promote(delayed.id)).toMatchObject({ promoted: false });
    expect(runs.get('promoted')).toBe(1);
  });
});
