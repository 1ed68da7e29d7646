import { waitFor } from '@berth/local-infra/testing';
import { createJobProducer, listDeadLetters } from '@berth/jobs';
import type { FlowEvent, FlowJobData } from '../fixtures/flow-events';
import { collectFlowEvents, type FlowWorkerEnv, flowWorkerFixture } from '../support/flow-worker-process';
import { uniqueQueue } from '../support/infra';

const flow = flowWorkerFixture('warn');
const { logs } = flow;

async function startWorkers(queue: string, count: number, extra: Partial<FlowWorkerEnv> = {}): Promise<void> {
  return flow.startWorkers(count, { FLOW_QUEUE: queue, WORKER_CONCURRENCY: '8', ...extra });
}

/** The smallest time between a start and the start `limit` places after it: at least `perMs` when the limit held. */
function tightestWindow(starts: readonly FlowEvent[], limit: number): number {
  const times = starts.map((event) => event.at).sort((a, b) => a - b);
  let tightest = Number.POSITIVE_INFINITY;
  for (let i = limit; i < times.length; i++) tightest = Math.min(tightest, times[i] - times[i - limit]);
  return tightest;
}

describe('rate limits across worker processes', () => {
  it('per key: at most 5 starts of a key in any 500 ms, jobs over it wait (first attempt, no failure), other keys unaffected', async () => {
    const queue = uniqueQueue('flow-rate');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    await startWorkers(queue, 3);
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    const limited = await Promise.all(
      Array.from({ length: 40 }, () =>
        producer.add(queue, 'FlowJob', { key: 'ws_rate' } satisfies FlowJobData, {
          rateLimit: { key: 'ws_rate', limit: 5, perMs: 500 },
        }),
      ),
    );
    const free = await Promise.all(
      Array.from({ length: 40 }, () => producer.add(queue, 'FlowJob', { key: 'ws_free' } satisfies FlowJobData)),
    );
    const started = Date.now();
    await waitFor(() => collected.events.filter((e) => e.type === 'end' && e.key === 'ws_rate').length === 40, {
      what: 'the limited jobs',
      timeoutMs: 30000,
    });
    const elapsed = Date.now() - started;
    collected.close();
    const starts = collected.events.filter((e) => e.type === 'start' && e.key === 'ws_rate');
    expect(new Set(starts.map((e) => e.jobId))).toEqual(new Set(limited.map((job) => job.id)));
    expect(starts).toHaveLength(40);
    expect(starts.every((e) => e.attempt === 1)).toBe(true);
    // Exact where the limit is taken (the KV record of admissions); a handler starts a few ms after its admission.
    expect(tightestWindow(starts, 5)).toBeGreaterThanOrEqual(500 - 25);
    // 40 jobs at 5 per 500 ms: 7 windows of waiting at least.
    expect(elapsed).toBeGreaterThanOrEqual(3400);
    const freeEnds = collected.events.filter((e) => e.type === 'end' && e.key === 'ws_free');
    expect(freeEnds).toHaveLength(free.length);
    expect(new Set(starts.map((e) => e.worker)).size).toBeGreaterThan(1);
    expect(await listDeadLetters(flow.nats.messaging, { queue })).toEqual([]);
    process.stdout.write(
      `rate-limit: 40 jobs at 5/500 ms over ${new Set(starts.map((e) => e.worker)).size} workers in ${elapsed} ms, tightest 5-start window ${tightestWindow(starts, 5).toFixed(1)} ms\n`,
    );
  }, 60000);

  it('per key, with blocks of starts in play (a limit of 20): at most 20 starts in any second over three workers', async () => {
    // Below half its limit a key's starts are reserved in blocks and used without a write; the limit must hold
    // however the workers use them, and the key must still reach its limit.
    const queue = uniqueQueue('flow-rate-block');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    await startWorkers(queue, 3);
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    const limit = { key: 'ws_block', limit: 20, perMs: 1000 };
    await Promise.all(
      Array.from({ length: 100 }, () =>
        producer.add(queue, 'FlowJob', { key: 'ws_block' } satisfies FlowJobData, { rateLimit: limit }),
      ),
    );
    const started = Date.now();
    await waitFor(() => collected.events.filter((e) => e.type === 'end').length === 100, {
      what: 'the limited jobs',
      timeoutMs: 40000,
    });
    const elapsed = Date.now() - started;
    collected.close();
    const starts = collected.events.filter((e) => e.type === 'start');
    expect(new Set(starts.map((e) => e.jobId)).size).toBe(100);
    expect(tightestWindow(starts, 20)).toBeGreaterThanOrEqual(1000 - 25);
    // 100 jobs at 20 a second: four windows of waiting at least, and not many more.
    expect(elapsed).toBeGreaterThanOrEqual(3900);
    expect(elapsed).toBeLessThan(20000);
    expect(await listDeadLetters(flow.nats.messaging, { queue })).toEqual([]);
    process.stdout.write(
      `rate-limit with blocks: 100 jobs at 20/1000 ms over ${new Set(starts.map((e) => e.worker)).size} workers in ${elapsed} ms, tightest 20-start window ${tightestWindow(starts, 20).toFixed(1)} ms\n`,
    );
  }, 60000);

  it('per queue: QUEUE_RATE_LIMIT 10/1000 holds across two workers', async () => {
    const queue = uniqueQueue('flow-rate-q');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    await startWorkers(queue, 2, { QUEUE_RATE_LIMIT: '10/1000' });
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    await Promise.all(
      Array.from({ length: 30 }, (_, n) => producer.add(queue, 'FlowJob', { key: `k${n % 3}` } satisfies FlowJobData)),
    );
    await waitFor(() => collected.events.filter((e) => e.type === 'end').length === 30, {
      what: 'every job',
      timeoutMs: 30000,
    });
    collected.close();
    const starts = collected.events.filter((e) => e.type === 'start');
    expect(starts).toHaveLength(30);
    expect(tightestWindow(starts, 10)).toBeGreaterThanOrEqual(1000 - 25);
  }, 60000);
});
