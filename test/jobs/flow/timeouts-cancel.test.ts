import { waitFor } from '@berth/local-infra/testing';
import { EventEmitter, once } from 'node:events';
import type { INestApplicationContext } from '@nestjs/common';
import {
  cancelJob,
  createJobProducer,
  DELAYED_JOBS_STREAM_NAME,
  getMessageQueueToken,
  JobCancelledError,
  JobTimeoutError,
  JOBS_STREAM_NAME,
  listDeadLetters,
  Process,
  Processor,
  queueConsumerName,
  type JobFinishedEvent,
  type JobInfo,
  type MessageQueueService,
} from '@berth/jobs';
import type { Messaging } from '@berth/messaging';
import { captureLogs, startNats, uniqueQueue, type NatsFixture } from '../support/infra';
import { createJobsApp } from '../support/jobs-app';

const logs = captureLogs('warn');
const queue = uniqueQueue('flow-cancel');
/** Handler events: `start` (jobId, worker), `abort` (jobId, reason, at), `done` (jobId). */
const events = new EventEmitter();
const attempts = new Map<string, { attempt: number; reason?: unknown }[]>();
const finished: JobFinishedEvent[] = [];

type HangData = { key: string; hangAttempts: number };

/** Hangs (ignoring nothing: it listens to its signal) on its first `hangAttempts` attempts, then succeeds. */
function hangingProcessor(worker: string) {
  @Processor({ queueName: queue })
  class HangJob {
    @Process(HangJob.name)
    async handle(data: HangData, info: JobInfo): Promise<void> {
      const list = attempts.get(info.id) ?? [];
      const entry: { attempt: number; reason?: unknown } = { attempt: info.attempt };
      list.push(entry);
      attempts.set(info.id, list);
      events.emit('start', { jobId: info.id, worker, attempt: info.attempt });
      if (info.attempt > data.hangAttempts) {
        events.emit('done', { jobId: info.id });
        return;
      }
      await new Promise<void>((_, reject) => {
        info.signal?.addEventListener(
          'abort',
          () => {
            entry.reason = info.signal?.reason;
            events.emit('abort', { jobId: info.id, reason: info.signal?.reason, at: performance.now() });
            reject(info.signal?.reason);
          },
          { once: true },
        );
      });
    }
  }
  return HangJob;
}

let nats: NatsFixture;
let apps: INestApplicationContext[] = [];
let operator: Messaging;

beforeAll(async () => {
  nats = await startNats(logs.logger);
  operator = await nats.connect('operator');
  // Two workers, each with its own connection, like two replicas; the operator cancels from a third.
  for (const worker of ['w1', 'w2']) {
    const messaging = worker === 'w1' ? nats.messaging : await nats.connect(worker);
    apps.push(
      await createJobsApp({
        messaging,
        logger: logs.logger,
        logContext: logs.logContext,
        queues: [queue],
        providers: [hangingProcessor(worker)],
        queueOptions: { [queue]: { concurrency: 4, backoff: { baseDelayMs: 100, jitter: 0 } } },
        observer: { jobFinished: (event) => finished.push(event) },
      }),
    );
  }
});
afterAll(async () => {
  for (const app of apps) await app.close();
  apps = [];
  await nats?.stop();
});

const queueService = () => apps[0].get<MessageQueueService>(getMessageQueueToken(queue));

async function settledQueue(): Promise<boolean> {
  for (const stream of [JOBS_STREAM_NAME, DELAYED_JOBS_STREAM_NAME]) {
    const info = await nats.messaging.jsm.consumers.info(stream, queueConsumerName(queue));
    if (info.num_pending + info.num_ack_pending > 0) return false;
  }
  return true;
}

describe('timeouts', () => {
  it('fires the signal at timeoutMs, fails the attempt, and retries it', async () => {
    const added = await queueService().add<HangData>(
      'HangJob',
      { key: 'timeout', hangAttempts: 1 },
      { timeoutMs: 300 },
    );
    await waitFor(() => attempts.get(added.id)?.length === 2, { what: 'the retry', timeoutMs: 10000 });
    await waitFor(settledQueue, { what: 'the queue to settle', timeoutMs: 5000 });
    const [first, second] = attempts.get(added.id) ?? [];
    expect(first).toMatchObject({ attempt: 1 });
    expect(first.reason).toBeInstanceOf(JobTimeoutError);
    expect(second).toEqual({ attempt: 2 });
    expect(finished.filter((event) => event.queue === queue && event.outcome === 'retried')).toHaveLength(1);
    expect(await listDeadLetters(nats.messaging, { queue })).toEqual([]);
    expect(
      logs.lines.some((line) =>
        String(line.msg).startsWith('Attempt 1 failed: JobTimeoutError: Job timed out after 300 ms'),
      ),
    ).toBe(true);
  });

  it('dead-letters a job whose every attempt times out', async () => {
    const added = await queueService().add<HangData>(
      'HangJob',
      { key: 'always', hangAttempts: 99 },
      { timeoutMs: 200, retryLimit: 1 },
    );
    const letter = await waitFor(
      async () => (await listDeadLetters(nats.messaging, { queue })).find((l) => l.jobId === added.id),
      { what: 'the dead letter', timeoutMs: 10000 },
    );
    expect(letter).toMatchObject({
      reason: 'exhausted',
      attempts: 2,
      error: { name: 'JobTimeoutError', message: 'Job timed out after 200 ms' },
    });
  });
});

describe('cancel(jobId) from another process', () => {
  it('stops a running job within 100 ms, and does not retry it', async () => {
    const started = once(events, 'start');
    const added = await queueService().add<HangData>('HangJob', { key: 'cancel-running', hangAttempts: 99 });
    const [{ jobId, worker }] = (await started) as [{ jobId: string; worker: string }];
    expect(jobId).toBe(added.id);
    const aborted = once(events, 'abort');
    const before = performance.now();
    await cancelJob(operator, queue, added.id, { reason: 'customer left' });
    const stored = performance.now();
    const [abort] = (await aborted) as [{ jobId: string; reason: unknown; at: number }];
    expect(abort.jobId).toBe(added.id);
    expect(abort.reason).toBeInstanceOf(JobCancelledError);
    expect((abort.reason as JobCancelledError).reason).toBe('customer left');
    process.stdout.write(
      `cancel: worker ${worker} aborted ${(abort.at - stored).toFixed(1)} ms after the cancellation was stored (${(abort.at - before).toFixed(1)} ms after cancel was called)\n`,
    );
    expect(abort.at - stored).toBeLessThan(100);
    await waitFor(settledQueue, { what: 'the cancelled job to be acked', timeoutMs: 5000 });
    expect(attempts.get(added.id)).toHaveLength(1);
    expect(finished.filter((event) => event.outcome === 'cancelled')).toHaveLength(1);
    expect((await listDeadLetters(nats.messaging, { queue })).filter((letter) => letter.jobId === added.id)).toEqual(
      [],
    );
  });

  it('drops a waiting job without running it', async () => {
    const added = await queueService().add<HangData>(
      'HangJob',
      { key: 'cancel-waiting', hangAttempts: 0 },
      { delayInMilliseconds: 600 },
    );
    await queueService().cancel(added.id);
    // The job becomes due and is taken by a worker, which drops it: the consumer acks it, the handler never runs.
    await waitFor(
      async () =>
        (await nats.messaging.jsm.consumers.info(DELAYED_JOBS_STREAM_NAME, queueConsumerName(queue))).ack_floor
          .stream_seq > 0 && settledQueue(),
      { what: 'the delayed job to be dropped', timeoutMs: 10000 },
    );
    await waitFor(() => finished.filter((event) => event.outcome === 'cancelled').length === 2, {
      what: 'the cancelled outcome',
      timeoutMs: 5000,
    });
    expect(attempts.has(added.id)).toBe(false);
  });

  it('frees the deduplication id of a cancelled job', async () => {
    const producer = createJobProducer({ messaging: operator, logger: logs.logger });
    const started = once(events, 'start');
    const first = await producer.add(
      queue,
      'HangJob',
      { key: 'dedup', hangAttempts: 99 },
      { deduplicationId: 'report-1' },
    );
    await started;
    expect(
      (await producer.add(queue, 'HangJob', { key: 'dedup', hangAttempts: 99 }, { deduplicationId: 'report-1' }))
        .deduplicated,
    ).toBe(true);
    const aborted = once(events, 'abort');
    await cancelJob(operator, queue, first.id);
    await aborted;
    const again = await waitFor(
      async () => {
        const result = await producer.add(
          queue,
          'HangJob',
          { key: 'dedup', hangAttempts: 0 },
          { deduplicationId: 'report-1' },
        );
        return result.deduplicated ? undefined : result;
      },
      { what: 'the deduplication id to be free', timeoutMs: 5000 },
    );
    await waitFor(() => attempts.get(again.id)?.length === 1, { what: 'the new job to run', timeoutMs: 5000 });
  });
});
