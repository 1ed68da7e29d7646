import { waitFor } from '@berth/local-infra/testing';
import {
  cancelJob,
  createJobProducer,
  DELAYED_JOBS_STREAM_NAME,
  JOBS_STREAM_NAME,
  listDeadLetters,
  queueConsumerName,
} from '@berth/jobs';
import type { Messaging } from '@berth/messaging';
import type { FlowEvent, FlowJobData } from '../fixtures/flow-events';
import { collectFlowEvents, flowWorkerFixture } from '../support/flow-worker-process';
import { uniqueQueue } from '../support/infra';

// Two worker processes, like two replicas; the test process adds the jobs and cancels them from a connection of its own.
const flow = flowWorkerFixture('warn');
const queue = uniqueQueue('flow-cancel');
let collected: { events: FlowEvent[]; close(): void };
let operator: Messaging;
let producer: ReturnType<typeof createJobProducer>;

beforeAll(async () => {
  collected = collectFlowEvents(flow.nats.messaging, queue);
  operator = await flow.nats.connect('operator');
  producer = createJobProducer({ messaging: flow.nats.messaging, logger: flow.logs.logger });
  await flow.startWorkers(2, { FLOW_QUEUE: queue, WORKER_CONCURRENCY: '4' });
});
afterAll(() => collected?.close());

const eventsOf = (jobId: string, type: FlowEvent['type']): FlowEvent[] =>
  collected.events.filter((event) => event.jobId === jobId && event.type === type);
const outcomes = (outcome: FlowEvent['outcome']): number =>
  collected.events.filter((event) => event.type === 'finished' && event.outcome === outcome).length;

async function settledQueue(): Promise<boolean> {
  for (const stream of [JOBS_STREAM_NAME, DELAYED_JOBS_STREAM_NAME]) {
    const info = await flow.nats.messaging.jsm.consumers.info(stream, queueConsumerName(queue));
    if (info.num_pending + info.num_ack_pending > 0) return false;
  }
  return true;
}

describe('timeouts, in worker processes', () => {
  it('fires the signal at timeoutMs, fails the attempt, and retries it', async () => {
    const added = await producer.add(queue, 'FlowJob', { key: 'timeout', hangOnAttempts: [1] } satisfies FlowJobData, {
      timeoutMs: 300,
    });
    await waitFor(() => eventsOf(added.id, 'end').length === 1, { what: 'the retry', timeoutMs: 10000 });
    await waitFor(settledQueue, { what: 'the queue to settle', timeoutMs: 5000 });
    const [aborted] = eventsOf(added.id, 'abort');
    expect(aborted).toMatchObject({ attempt: 1, reason: { name: 'JobTimeoutError' } });
    expect(eventsOf(added.id, 'start').map((event) => event.attempt)).toEqual([1, 2]);
    expect(eventsOf(added.id, 'end')).toMatchObject([{ attempt: 2 }]);
    expect(outcomes('retried')).toBe(1);
    expect(await listDeadLetters(flow.nats.messaging, { queue })).toEqual([]);
    // The worker that ran the attempt logged its failure (workers are named `<queue>-w<n>`, n from 1).
    const worker = flow.workers[Number(aborted.worker.slice(aborted.worker.lastIndexOf('-w') + 2)) - 1];
    await worker.waitForLine(/Attempt 1 failed: JobTimeoutError: Job timed out after 300 ms/, 5000);
  });

  it('dead-letters a job whose every attempt times out', async () => {
    const added = await producer.add(
      queue,
      'FlowJob',
      { key: 'always', hangOnAttempts: [1, 2] } satisfies FlowJobData,
      { timeoutMs: 200, retryLimit: 1 },
    );
    const letter = await waitFor(
      async () => (await listDeadLetters(flow.nats.messaging, { queue })).find((l) => l.jobId === added.id),
      { what: 'the dead letter', timeoutMs: 10000 },
    );
    expect(letter).toMatchObject({
      reason: 'exhausted',
      attempts: 2,
      error: { name: 'JobTimeoutError', message: 'Job timed out after 200 ms' },
    });
  });
});

describe('cancel(jobId) from another process than the workers', () => {
  it('stops a running job within 100 ms, and does not retry it', async () => {
    const added = await producer.add(queue, 'FlowJob', {
      key: 'cancel-running',
      hangOnAttempts: [1, 2, 3, 4],
    } satisfies FlowJobData);
    const [started] = await waitFor(() => eventsOf(added.id, 'start'), {
      what: 'the job to start',
      until: (starts) => starts.length > 0,
      timeoutMs: 10000,
    });
    const before = performance.timeOrigin + performance.now();
    await cancelJob(operator, queue, added.id, { reason: 'customer left' });
    const stored = performance.timeOrigin + performance.now();
    const [abort] = await waitFor(() => eventsOf(added.id, 'abort'), {
      what: 'the signal to fire',
      until: (aborts) => aborts.length > 0,
      timeoutMs: 5000,
    });
    expect(abort.reason).toEqual(expect.objectContaining({ name: 'JobCancelledError', cancelReason: 'customer left' }));
    process.stdout.write(
      `cancel: worker ${started.worker} aborted ${(abort.at - stored).toFixed(1)} ms after the cancellation was stored (${(abort.at - before).toFixed(1)} ms after cancel was called)\n`,
    );
    expect(abort.at - stored).toBeLessThan(100);
    await waitFor(settledQueue, { what: 'the cancelled job to be acked', timeoutMs: 5000 });
    await waitFor(() => outcomes('cancelled') === 1, { what: 'the cancelled outcome', timeoutMs: 5000 });
    expect(eventsOf(added.id, 'start')).toHaveLength(1);
    expect(
      (await listDeadLetters(flow.nats.messaging, { queue })).filter((letter) => letter.jobId === added.id),
    ).toEqual([]);
  });

  it('drops a waiting job without running it', async () => {
    const added = await producer.add(queue, 'FlowJob', { key: 'cancel-waiting' } satisfies FlowJobData, {
      delayInMilliseconds: 600,
    });
    await cancelJob(operator, queue, added.id);
    // The job becomes due and is taken by a worker, which drops it: the consumer acks it, the handler never runs.
    await waitFor(
      async () =>
        (await flow.nats.messaging.jsm.consumers.info(DELAYED_JOBS_STREAM_NAME, queueConsumerName(queue))).ack_floor
          .stream_seq > 0 && settledQueue(),
      { what: 'the delayed job to be dropped', timeoutMs: 10000 },
    );
    await waitFor(() => outcomes('cancelled') === 2, { what: 'the cancelled outcome', timeoutMs: 5000 });
    expect(eventsOf(added.id, 'start')).toEqual([]);
  });

  it('frees the deduplication id of a cancelled job', async () => {
    const other = createJobProducer({ messaging: operator, logger: flow.logs.logger });
    const hanging = { key: 'dedup', hangOnAttempts: [1, 2, 3, 4] } satisfies FlowJobData;
    const first = await other.add(queue, 'FlowJob', hanging, { deduplicationId: 'report-1' });
    await waitFor(() => eventsOf(first.id, 'start').length > 0, { what: 'the first job to start', timeoutMs: 10000 });
    expect((await other.add(queue, 'FlowJob', hanging, { deduplicationId: 'report-1' })).deduplicated).toBe(true);
    await cancelJob(operator, queue, first.id);
    await waitFor(() => eventsOf(first.id, 'abort').length > 0, { what: 'the signal to fire', timeoutMs: 5000 });
    const again = await waitFor(
      async () => {
        const result = await other.add(queue, 'FlowJob', { key: 'dedup' } satisfies FlowJobData, {
          deduplicationId: 'report-1',
        });
        return result.deduplicated ? undefined : result;
      },
      { what: 'the deduplication id to be free', timeoutMs: 5000 },
    );
    await waitFor(() => eventsOf(again.id, 'end').length === 1, { what: 'the new job to run', timeoutMs: 5000 });
  });
});
