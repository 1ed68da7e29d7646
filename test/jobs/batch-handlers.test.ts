import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import {
  BatchJobError,
  JOBS_STREAM_NAME,
  Process,
  Processor,
  UnrecoverableError,
  getMessageQueueToken,
  listDeadLetters,
  queueConsumerName,
  type BatchJob,
  type MessageQueueService,
} from '@berth/jobs';
import { captureLogs, startNats, uniqueQueue, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const logs = captureLogs('info');
let nats: NatsFixture;
let app: INestApplicationContext;
const queue = uniqueQueue('batches');

type Data = { n: number };
/** Every handler call of a job name: the jobs it got, as `[n, attempt]`. */
const calls = new Map<string, [number, number][][]>();
const record = (name: string, jobs: BatchJob<Data>[]): void => {
  calls.set(name, [...(calls.get(name) ?? []), jobs.map((job) => [job.data.n, job.attempt])]);
};
const callsOf = (name: string): [number, number][][] => calls.get(name) ?? [];
/** The attempts each job of a job name was handed in, by `n`. */
const attemptsOf = (name: string): Map<number, number[]> => {
  const attempts = new Map<number, number[]>();
  for (const call of callsOf(name))
    for (const [n, attempt] of call) attempts.set(n, [...(attempts.get(n) ?? []), attempt]);
  return attempts;
};

@Processor({ queueName: queue })
class BatchProcessors {
  @Process('Bulk', { batch: { size: 100, waitMs: 200 } })
  async bulk(jobs: BatchJob<Data>[]): Promise<void> {
    record('Bulk', jobs);
  }

  @Process('Partial', { batch: { size: 50, waitMs: 100 } })
  async partial(jobs: BatchJob<Data>[]): Promise<void> {
    record('Partial', jobs);
  }

  /** Job 3 fails its first attempt, job 5 can never succeed; each is reported alone in a BatchJobError. */
  @Process('Picky', { batch: { size: 20, waitMs: 100 } })
  async picky(jobs: BatchJob<Data>[]): Promise<void> {
    record('Picky', jobs);
    const failures = jobs.flatMap((job) =>
      job.data.n === 3 && job.attempt === 1
        ? [{ jobId: job.id, error: new Error('job 3 is not ready yet') }]
        : job.data.n === 5
          ? [{ jobId: job.id, error: new UnrecoverableError('job 5 is malformed') }]
          : [],
    );
    if (failures.length > 0) throw new BatchJobError(failures);
  }

  @Process('Keyed', { batch: { size: 20, waitMs: 100 } })
  async keyed(jobs: BatchJob<Data>[]): Promise<void> {
    record('Keyed', jobs);
  }

  /** Throws for the whole batch while it holds any job on its first attempt. */
  @Process('Fragile', { batch: { size: 20, waitMs: 100 } })
  async fragile(jobs: BatchJob<Data>[]): Promise<void> {
    record('Fragile', jobs);
    if (jobs.some((job) => job.attempt === 1)) throw new Error('the bulk endpoint is down');
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    logContext: logs.logContext,
    queues: [queue],
    providers: [BatchProcessors],
    queueOptions: { [queue]: { concurrency: 4, backoff: { baseDelayMs: 100, jitter: 0 } } },
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

const queueService = () => app.get<MessageQueueService>(getMessageQueueToken(queue));
const addMany = (name: string, ns: number[], retryLimit?: (n: number) => number) =>
  Promise.all(ns.map((n) => queueService().add<Data>(name, { n }, retryLimit ? { retryLimit: retryLimit(n) } : {})));
const range = (count: number, from = 0) => Array.from({ length: count }, (_, i) => from + i);

describe('batch handlers on JetStream', () => {
  it('refuses to start a worker for a batch job on a queue with a rate limit', async () => {
    const limited = uniqueQueue('batches-limited');
    @Processor({ queueName: limited })
    class LimitedBatch {
      @Process('LimitedBatch', { batch: { size: 10, waitMs: 50 } })
      async handle(): Promise<void> {}
    }
    await expect(
      createJobsApp({
        messaging: nats.messaging,
        logger: logs.logger,
        queues: [limited],
        providers: [LimitedBatch],
        queueOptions: { [limited]: { rateLimit: { limit: 10, perMs: 1000 } } },
      }),
    ).rejects.toThrow(/rateLimit, which counts jobs one by one: its batch job LimitedBatch cannot run there/);
  });

  it('hands 250 jobs over in calls of at most 100, every job exactly once', async () => {
    await addMany('Bulk', range(250));
    await waitFor(() => callsOf('Bulk').flat().length >= 250, {
      what: 'the 250 jobs to be handed over',
      timeoutMs: 15000,
    });
    // Every message acked: nothing is left to hand over again.
    await waitFor(
      async () => {
        const info = await nats.messaging.jsm.consumers.info(JOBS_STREAM_NAME, queueConsumerName(queue));
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      { what: 'the queue consumer to be drained', timeoutMs: 10000 },
    );
    const sizes = callsOf('Bulk').map((call) => call.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(250);
    expect(sizes.length).toBeLessThan(250 / 10); // batched, not one call per job
    const attempts = attemptsOf('Bulk');
    expect([...attempts.keys()].sort((a, b) => a - b)).toEqual(range(250));
    expect([...attempts.values()].every((seen) => seen.length === 1 && seen[0] === 1)).toBe(true);
  });

  it('runs a batch that does not fill after waitMs, with fewer jobs than its size', async () => {
    await addMany('Partial', [1, 2, 3]);
    await waitFor(() => callsOf('Partial').flat().length === 3, { what: 'the 3 jobs to run', timeoutMs: 10000 });
    expect(callsOf('Partial').every((call) => call.length < 50)).toBe(true);
    expect(callsOf('Partial').some((call) => call.length > 1)).toBe(true);
  });

  it('runs a job added with its own per-key concurrency alone, in a batch of one', async () => {
    await Promise.all([
      ...range(4).map((n) => queueService().add<Data>('Keyed', { n }, { concurrency: { key: 'tenant-1', limit: 1 } })),
      ...range(3, 10).map((n) => queueService().add<Data>('Keyed', { n })),
    ]);
    await waitFor(() => callsOf('Keyed').flat().length === 7, { what: 'the 7 jobs to run', timeoutMs: 10000 });
    const keyedCalls = callsOf('Keyed').filter((call) => call.some(([n]) => n < 10));
    expect(keyedCalls.map((call) => call.length)).toEqual([1, 1, 1, 1]);
    expect(callsOf('Keyed').some((call) => call.length > 1)).toBe(true);
  });

  it('retries only the jobs a BatchJobError lists, each with its own attempts', async () => {
    await addMany('Picky', range(10));
    await waitFor(() => attemptsOf('Picky').get(3)?.includes(2), {
      what: 'job 3 on its second attempt',
      timeoutMs: 10000,
    });
    const letter = await waitFor(
      async () =>
        (await listDeadLetters(nats.messaging, { queue })).find((l) => l.name === 'Picky' && (l.data as Data).n === 5),
      { what: 'the dead letter of job 5', timeoutMs: 10000 },
    );
    expect(letter).toMatchObject({ reason: 'unrecoverable', attempts: 1 });
    const attempts = attemptsOf('Picky');
    expect(attempts.get(3)).toEqual([1, 2]);
    expect(attempts.get(5)).toEqual([1]);
    for (const n of range(10)) if (n !== 3) expect(attempts.get(n)).toEqual([1]);
  });

  it('retries every job of a batch whose handler threw, counting each job its attempts', async () => {
    await addMany('Fragile', range(6, 100), (n) => (n === 105 ? 0 : 3));
    await waitFor(
      () => {
        const attempts = attemptsOf('Fragile');
        return range(5, 100).every((n) => (attempts.get(n) ?? []).length >= 2);
      },
      { what: 'every retryable job to run again', timeoutMs: 15000 },
    );
    const letter = await waitFor(
      async () =>
        (await listDeadLetters(nats.messaging, { queue })).find(
          (l) => l.name === 'Fragile' && (l.data as Data).n === 105,
        ),
      { what: 'the dead letter of the job with no retries', timeoutMs: 10000 },
    );
    expect(letter).toMatchObject({ reason: 'exhausted', attempts: 1, retryLimit: 0 });
    const attempts = attemptsOf('Fragile');
    for (const n of range(5, 100)) {
      const seen = attempts.get(n) ?? [];
      // The first attempt failed with the batch; each later one is the next attempt of that job.
      expect(seen).toEqual(range(seen.length, 1));
      expect(seen.length).toBeGreaterThanOrEqual(2);
    }
    expect(attempts.get(105)).toEqual([1]);
  });
});
