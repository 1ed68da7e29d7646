import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import {
  JOBS_STREAM_NAME,
  Process,
  Processor,
  getMessageQueueToken,
  listDeadLetters,
  type MessageQueueService,
} from '@berth/jobs';
import { captureLogs, startNats, uniqueQueue, waitForQueueSettled, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const logs = captureLogs('info');
let nats: NatsFixture;
let app: INestApplicationContext;
const queue = uniqueQueue('batch');
const runs = new Map<number, number>();
const failuresPlanned = new Map<number, number>();

type CountData = { n: number };

@Processor({ queueName: queue })
class CountJob {
  @Process(CountJob.name)
  async handle({ n }: CountData): Promise<void> {
    const count = (runs.get(n) ?? 0) + 1;
    runs.set(n, count);
    if (count <= (failuresPlanned.get(n) ?? 0)) throw new Error(`job ${n} fails on attempt ${count}`);
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    logContext: logs.logContext,
    queues: [queue],
    providers: [CountJob],
    queueOptions: { [queue]: { concurrency: 16, backoff: { baseDelayMs: 100, jitter: 0 } } },
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

const queueService = () => app.get<MessageQueueService>(getMessageQueueToken(queue));

describe('jobs queued in one burst share messages', () => {
  it('stores 2,000 concurrent adds in far fewer messages, and runs every job once', async () => {
    const before = (await nats.messaging.jsm.streams.info(JOBS_STREAM_NAME)).state.last_seq;
    const added = await Promise.all(
      Array.from({ length: 2000 }, (_, n) => queueService().add<CountData>(CountJob.name, { n })),
    );
    expect(new Set(added.map((job) => job.id)).size).toBe(2000);
    const messages = (await nats.messaging.jsm.streams.info(JOBS_STREAM_NAME)).state.last_seq - before;
    expect(messages).toBeLessThan(200);
    await waitFor(() => runs.size === 2000, { what: 'all 2,000 jobs', timeoutMs: 10000 });
    await waitForQueueSettled(nats.messaging, queue);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
  });

  it('retries a failed job of a batch on its own, without running the others again', async () => {
    runs.clear();
    const base = 10000;
    failuresPlanned.set(base + 3, 2); // fails twice, then succeeds
    failuresPlanned.set(base + 7, 99); // never succeeds: dead letters after retryLimit 1
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        queueService().add<CountData>(CountJob.name, { n: base + i }, { retryLimit: i === 7 ? 1 : 3 }),
      ),
    );
    await waitFor(() => runs.get(base + 3) === 3, { what: 'the flaky job to succeed on attempt 3', timeoutMs: 5000 });
    const letter = await waitFor(
      async () => (await listDeadLetters(nats.messaging, { queue })).find((l) => (l.data as CountData).n === base + 7),
      { what: 'the dead letter', timeoutMs: 5000 },
    );
    expect(letter).toMatchObject({ reason: 'exhausted', attempts: 2, retryLimit: 1, name: 'CountJob' });
    for (let i = 0; i < 50; i++) if (i !== 3 && i !== 7) expect(runs.get(base + i)).toBe(1);
    expect(runs.get(base + 7)).toBe(2);
    const retryLines = logs.lines.filter(
      (line) => line.msg === 'Attempt 1 failed: Error: job 10003 fails on attempt 1',
    );
    expect(retryLines[0]).toMatchObject({ queue, jobName: 'CountJob', attempt: 1 });
    expect(typeof retryLines[0].jobId).toBe('string');
  });
});
