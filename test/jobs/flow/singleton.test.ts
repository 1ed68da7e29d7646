import { waitFor } from '@berth/local-infra/testing';
import {
  cancelJob,
  createJobProducer,
  JOBS_STREAM_NAME,
  listDeadLetters,
  queueConsumerName,
  type AddedJob,
} from '@berth/jobs';
import type { FlowJobData } from '../fixtures/flow-events';
import { collectFlowEvents, flowWorkerFixture } from '../support/flow-worker-process';
import { uniqueQueue } from '../support/infra';

const flow = flowWorkerFixture('error');
const { logs, workers } = flow;

// 30 s leases by default: a key these tests see freed within their 15 s waits was released, not left to expire.
async function startWorkers(queue: string, count: number, ackWaitMs = 30000): Promise<void> {
  return flow.startWorkers(count, { FLOW_QUEUE: queue, WORKER_ACK_WAIT_MS: String(ackWaitMs) });
}

const producer = () => createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });

/** Adds the job again and again until one is stored (the key freed); returns every answer, the stored one last. */
async function addUntilStored(add: () => Promise<AddedJob>, what: string): Promise<AddedJob[]> {
  const answers: AddedJob[] = [];
  await waitFor(
    async () => {
      const added = await add();
      answers.push(added);
      return added.dropped === undefined;
    },
    { what, timeoutMs: 15000, intervalMs: 45 },
  );
  return answers;
}

describe('singleton: one job waiting or running per key', () => {
  it('of 40 concurrent adds from two producers one is stored; adds while it waits and runs get its id; then the key is free', async () => {
    const queue = uniqueQueue('flow-singleton');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    const other = await flow.nats.connect('producer-b');
    const producers = [producer(), createJobProducer({ messaging: other, logger: logs.logger })];
    const add = (n: number) =>
      producers[n % 2].add(queue, 'FlowJob', { key: 'ws_1', workMs: 2000 } satisfies FlowJobData, {
        singleton: { key: 'ws_1' },
      });

    const burst = await Promise.all(Array.from({ length: 40 }, (_, n) => add(n)));
    const stored = burst.filter((added) => added.dropped === undefined);
    expect(stored).toHaveLength(1);
    expect(burst.every((added) => added.id === stored[0].id)).toBe(true);
    expect(burst.filter((added) => added.dropped === 'singleton')).toHaveLength(39);

    await startWorkers(queue, 2);
    await waitFor(() => collected.events.some((e) => e.type === 'start' && e.jobId === stored[0].id), {
      what: 'start',
      timeoutMs: 10000,
    });
    const whileRunning = await add(1);
    expect(whileRunning).toEqual({ id: stored[0].id, deduplicated: false, dropped: 'singleton' });

    const answers = await addUntilStored(() => add(0), 'the key to be freed');
    const next = answers[answers.length - 1];
    expect(next.id).not.toBe(stored[0].id);
    // Freed only once the first job ended: every earlier answer named it.
    expect(answers.slice(0, -1).every((added) => added.id === stored[0].id)).toBe(true);
    expect(collected.events.some((e) => e.type === 'end' && e.jobId === stored[0].id)).toBe(true);
    await waitFor(() => collected.events.some((e) => e.type === 'end' && e.jobId === next.id), {
      what: 'the next job',
      timeoutMs: 10000,
    });
    collected.close();
    const starts = collected.events.filter((e) => e.type === 'start').map((e) => e.jobId);
    expect(starts).toEqual([stored[0].id, next.id]);
    await other.close();
  }, 60000);

  it('stays held between the attempts of a job that is retried, and frees when it fails for good', async () => {
    const queue = uniqueQueue('flow-singleton-fail');
    await startWorkers(queue, 1);
    const add = () =>
      producer().add(queue, 'FlowJob', { key: 'ws_f', workMs: 500, failOnAttempts: [1, 2] } satisfies FlowJobData, {
        singleton: { key: 'ws_f' },
        retryLimit: 1,
      });
    const first = await add();
    expect(first.dropped).toBeUndefined();
    const answers = await addUntilStored(add, 'the key to be freed after the dead letter');
    const letters = await listDeadLetters(flow.nats.messaging, { queue });
    expect(letters.map((letter) => [letter.jobId, letter.attempts])).toContainEqual([first.id, 2]);
    // Every add until then, through both attempts and the backoff between them, named the first job.
    expect(answers.length).toBeGreaterThan(1);
    expect(answers.slice(0, -1).every((added) => added.id === first.id)).toBe(true);
  }, 60000);

  it('frees when its running job is cancelled', async () => {
    const queue = uniqueQueue('flow-singleton-cancel');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    await startWorkers(queue, 1);
    const jobs = producer();
    const add = () =>
      jobs.add(queue, 'FlowJob', { key: 'ws_c', workMs: 20000 } satisfies FlowJobData, { singleton: { key: 'ws_c' } });
    const first = await add();
    await waitFor(() => collected.events.some((e) => e.type === 'start' && e.jobId === first.id), {
      what: 'start',
      timeoutMs: 10000,
    });
    expect((await add()).id).toBe(first.id);
    await cancelJob(flow.nats.messaging, queue, first.id, { reason: 'test' });
    const answers = await addUntilStored(add, 'the key to be freed by the cancellation');
    expect(answers[answers.length - 1].id).not.toBe(first.id);
    collected.close();
  }, 60000);

  it("frees one lease after its worker died; the dead worker's job, redelivered, does not run beside the new one", async () => {
    const queue = uniqueQueue('flow-singleton-dead');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    await startWorkers(queue, 1, 2000);
    const [doomed] = workers.slice(-1);
    const jobs = producer();
    const add = (data: FlowJobData) => jobs.add(queue, 'FlowJob', data, { singleton: { key: 'ws_d' } });
    const first = await add({ key: 'ws_d', exitOnAttempts: [1] });
    const exit = await doomed.exited;
    expect(exit.code).toBe(70);
    const diedAt = Date.now();

    const answers = await addUntilStored(() => add({ key: 'ws_d', workMs: 50 }), 'the lease to run out');
    const second = answers[answers.length - 1];
    // Held by the dead worker's lease at first (2 s from its last renewal), then free.
    expect(answers[0].id).toBe(first.id);
    expect(Date.now() - diedAt).toBeGreaterThan(500);

    await startWorkers(queue, 1, 2000);
    await waitFor(() => collected.events.some((e) => e.type === 'end' && e.jobId === second.id), {
      what: 'the new job',
      timeoutMs: 15000,
    });
    await waitFor(
      async () => {
        const info = await flow.nats.messaging.jsm.consumers.info(JOBS_STREAM_NAME, queueConsumerName(queue));
        return info.num_pending + info.num_ack_pending === 0;
      },
      { what: 'the redelivered job to be dropped', timeoutMs: 15000 },
    );
    collected.close();
    const starts = collected.events.filter((e) => e.type === 'start').map((e) => [e.jobId, e.attempt]);
    expect(starts).toEqual([
      [first.id, 1],
      [second.id, 1],
    ]);
    expect(await listDeadLetters(flow.nats.messaging, { queue })).toEqual([]);
  }, 60000);
});
