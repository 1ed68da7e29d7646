import { waitFor } from '@berth/local-infra/testing';
import { createJobProducer, DELAYED_JOBS_STREAM_NAME, queueConsumerName } from '@berth/jobs';
import type { FlowEvent, FlowJobData } from '../fixtures/flow-events';
import { collectFlowEvents, flowWorkerFixture } from '../support/flow-worker-process';
import { uniqueQueue } from '../support/infra';

// Two worker processes run the jobs; two producers (connections of their own) add them.
const flow = flowWorkerFixture('warn');
const queue = uniqueQueue('flow-windows');
let collected: { events: FlowEvent[]; close(): void };
let producers: ReturnType<typeof createJobProducer>[] = [];

beforeAll(async () => {
  collected = collectFlowEvents(flow.nats.messaging, queue);
  producers = [
    createJobProducer({ messaging: flow.nats.messaging, logger: flow.logs.logger }),
    createJobProducer({ messaging: await flow.nats.connect('producer-b'), logger: flow.logs.logger }),
  ];
  await flow.startWorkers(2, { FLOW_QUEUE: queue });
});
afterAll(() => collected?.close());

const producer = (n: number) => producers[n % producers.length];
const startOf = (jobId: string): FlowEvent | undefined =>
  collected.events.find((event) => event.type === 'start' && event.jobId === jobId);

describe('throttle and debounce windows, with worker processes', () => {
  it('throttle: runs the first job of a window and drops the others, from any producer; the next window opens after ms', async () => {
    const throttle = { key: 'ws_t', ms: 1000 };
    const data = { key: 'ws_t' } satisfies FlowJobData;
    // The window opens while the first add is stored: no earlier than this.
    const openedAt = performance.now();
    const first = await producer(0).add(queue, 'FlowJob', data, { throttle });
    const dropped = await Promise.all([1, 2, 3, 4].map((n) => producer(n).add(queue, 'FlowJob', data, { throttle })));
    expect(first.dropped).toBeUndefined();
    expect(dropped.every((added) => added.dropped === 'throttled' && added.id === first.id)).toBe(true);
    await waitFor(() => startOf(first.id), { what: 'the first job', timeoutMs: 5000 });
    // Adds keep being dropped until the window has lasted `ms`; the first one after is stored.
    const next = await waitFor(
      async () => {
        const added = await producer(1).add(queue, 'FlowJob', data, { throttle });
        return added.dropped === 'throttled' ? undefined : added;
      },
      { what: 'the next window to open', timeoutMs: 5000 },
    );
    expect(performance.now() - openedAt).toBeGreaterThanOrEqual(1000);
    await waitFor(() => startOf(next.id), { what: 'the next window', timeoutMs: 5000 });
    const ran = new Set(collected.events.filter((event) => event.key === 'ws_t').map((event) => event.jobId));
    expect([...ran].sort()).toEqual([first.id, next.id].sort());
  });

  it('debounce: of a burst only the last job runs, ms after it was added', async () => {
    const added: { id: string; at: number }[] = [];
    const data = { key: 'ws_d' } satisfies FlowJobData;
    for (let n = 0; n < 5; n++) {
      const job = await producer(n).add(queue, 'FlowJob', data, { debounce: { key: 'ws_d', ms: 600 } });
      added.push({ id: job.id, at: performance.timeOrigin + performance.now() });
    }
    const last = added[added.length - 1];
    const run = await waitFor(() => startOf(last.id), { what: 'the last job of the burst', timeoutMs: 5000 });
    expect(run.at - last.at).toBeGreaterThanOrEqual(600);
    await waitFor(
      async () => {
        const info = await flow.nats.messaging.jsm.consumers.info(DELAYED_JOBS_STREAM_NAME, queueConsumerName(queue));
        return info.num_pending + info.num_ack_pending === 0 && info.delivered.stream_seq >= 5;
      },
      { what: 'every debounced job to come due and settle', timeoutMs: 5000 },
    );
    expect(collected.events.filter((event) => event.key === 'ws_d' && event.type === 'start')).toEqual([
      expect.objectContaining({ jobId: last.id }),
    ]);
    // The four superseded jobs were dropped by the workers, as cancelled.
    await waitFor(
      () => collected.events.filter((event) => event.type === 'finished' && event.outcome === 'cancelled').length === 4,
      { what: 'the superseded jobs to be dropped', timeoutMs: 5000 },
    );
  });
});
