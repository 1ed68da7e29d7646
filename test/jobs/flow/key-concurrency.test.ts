import { waitFor } from '@berth/local-infra/testing';
import { createJobProducer, listDeadLetters } from '@berth/jobs';
import type { FlowJobData } from '../fixtures/flow-events';
import { collectFlowEvents, flowWorkerFixture } from '../support/flow-worker-process';
import { uniqueQueue, waitForQueueSettled } from '../support/infra';
import { maxConcurrentByKey } from './concurrency-stats';

const flow = flowWorkerFixture('warn');
const { logs } = flow;

/** Jobs of the queue parked in `JOBS_PARKED` now. */
async function parkedCount(queue: string): Promise<number> {
  const info = await flow.nats.messaging.jsm.streams.info('JOBS_PARKED', { subjects_filter: `parked.${queue}.>` });
  return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
}

async function startWorkers(queue: string, count: number): Promise<void> {
  return flow.startWorkers(count, { FLOW_QUEUE: queue, WORKER_CONCURRENCY: '8', WORKER_ACK_WAIT_MS: '5000' });
}

describe('per-key concurrency across three worker processes', () => {
  it('never runs more than `limit` jobs of one key at once, and runs every job once', async () => {
    const queue = uniqueQueue('flow-keys');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    await startWorkers(queue, 3);
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    const KEYS = 20;
    const PER_KEY = 30;
    const ids = new Set<string>();
    const adds: Promise<{ id: string }>[] = [];
    for (let n = 0; n < PER_KEY; n++) {
      for (let k = 0; k < KEYS; k++) {
        const data: FlowJobData = { key: `ws_${k}`, workMs: 15 };
        adds.push(producer.add(queue, 'FlowJob', data, { concurrency: { key: `ws_${k}`, limit: 2 } }));
      }
    }
    for (const added of await Promise.all(adds)) ids.add(added.id);
    const ends = () => collected.events.filter((event) => event.type === 'end');
    await waitFor(() => ends().length >= KEYS * PER_KEY, { what: 'every job to run', timeoutMs: 90000 });
    await waitForQueueSettled(flow.nats.messaging, queue, 30000);
    collected.close();

    const ended = ends().map((event) => event.jobId);
    expect(ended).toHaveLength(KEYS * PER_KEY);
    expect(new Set(ended)).toEqual(ids);
    const max = maxConcurrentByKey(collected.events);
    expect([...max.values()].every((value) => value <= 2)).toBe(true);
    // The limit is reached, not just respected by running each key one at a time.
    expect([...max.values()].filter((value) => value === 2).length).toBeGreaterThan(KEYS / 2);
    const byWorker = new Set(collected.events.map((event) => event.worker));
    expect(byWorker.size).toBe(3);
    expect(await listDeadLetters(flow.nats.messaging, { queue })).toEqual([]);
    expect(await parkedCount(queue)).toBe(0);
    process.stdout.write(
      `key-concurrency: ${KEYS * PER_KEY} jobs over ${KEYS} keys, max concurrent per key ${Math.max(...max.values())}, workers ${[...byWorker].join(', ')}\n`,
    );
  }, 120000);

  it('does not hold other keys up: a key with 10 jobs finishes while a key with 400 waits its turn', async () => {
    const queue = uniqueQueue('flow-keys-fair');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    await startWorkers(queue, 2);
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    const big = Array.from({ length: 400 }, () =>
      producer.add(queue, 'FlowJob', { key: 'big', workMs: 10 } satisfies FlowJobData, {
        concurrency: { key: 'big', limit: 1 },
      }),
    );
    await Promise.all(big);
    const small = await Promise.all(
      Array.from({ length: 10 }, () =>
        producer.add(queue, 'FlowJob', { key: 'small', workMs: 10 } satisfies FlowJobData, {
          concurrency: { key: 'small', limit: 1 },
        }),
      ),
    );
    const smallIds = new Set(small.map((job) => job.id));
    await waitFor(
      () => collected.events.filter((event) => event.type === 'end' && smallIds.has(event.jobId)).length === 10,
      { what: 'the small key', timeoutMs: 30000 },
    );
    const bigDone = collected.events.filter((event) => event.type === 'end' && event.key === 'big').length;
    collected.close();
    process.stdout.write(`key-concurrency: the small key's 10 jobs finished after ${bigDone} of the big key's 400\n`);
    expect(bigDone).toBeLessThan(200);
    expect(maxConcurrentByKey(collected.events).get('big')).toBe(1);
  }, 120000);
});

describe.each([
  // Stored in arrival order, so all six reach a worker and are parked.
  { mode: 'in arrival order (fair: false)', fair: false as const, parkedBeforeKill: 6 },
  // Fair by default: the feeder gives a key at most its limit a round and then holds back a key whose slots are all
  // held with jobs parked, so some of the six wait in its window instead of JOBS_PARKED.
  // The killed process also ran the queue's feeder: the jobs in its window move once another worker takes the
  // feeder's lease over, after that lease (5 s) at most.
  { mode: 'fair by default', fair: undefined, parkedBeforeKill: 2 },
])('a process killed while it holds slots with jobs queued behind them, $mode', ({ fair, parkedBeforeKill }) => {
  it('strands no job: each runs within the lease plus two seconds of the kill', async () => {
    const LEASE_MS = 3000;
    const queue = uniqueQueue('flow-keys-kill');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    const env = { FLOW_QUEUE: queue, WORKER_CONCURRENCY: '8', WORKER_ACK_WAIT_MS: String(LEASE_MS) };
    await flow.startWorkers(1, env);
    const doomed = flow.workers[flow.workers.length - 1];
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    const limit = { key: 'held', limit: 2 };
    const options = { concurrency: limit, ...(fair === false ? { fair } : {}) };
    // Two jobs that hang on their first attempt take both slots of the key on the doomed process.
    const holders = await Promise.all(
      [0, 1].map(() =>
        producer.add(queue, 'FlowJob', { key: 'held', hangOnAttempts: [1] } satisfies FlowJobData, options),
      ),
    );
    await waitFor(() => collected.events.filter((event) => event.type === 'start').length === 2, {
      what: 'both holders to start',
      timeoutMs: 20000,
    });
    const parked = await Promise.all(
      Array.from({ length: 6 }, () =>
        producer.add(queue, 'FlowJob', { key: 'held', workMs: 10 } satisfies FlowJobData, options),
      ),
    );
    const parkedIds = new Set(parked.map((job) => job.id));
    await waitFor(async () => (await parkedCount(queue)) >= parkedBeforeKill, {
      what: `${parkedBeforeKill} of the six jobs to be parked behind the holders`,
      timeoutMs: 20000,
    });
    await flow.startWorkers(1, env);

    doomed.child.kill('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    const killedAt = performance.timeOrigin + performance.now();
    const endsOf = (ids: Set<string>) =>
      collected.events.filter((event) => event.type === 'end' && ids.has(event.jobId));
    await waitFor(() => endsOf(parkedIds).length >= parkedIds.size, {
      what: 'every parked job to run',
      timeoutMs: LEASE_MS + 15000,
    });
    const holderIds = new Set(holders.map((job) => job.id));
    await waitFor(() => endsOf(holderIds).length >= holderIds.size, {
      what: 'the holders to run again elsewhere',
      timeoutMs: LEASE_MS + 15000,
    });
    collected.close();

    const starts = collected.events.filter((event) => event.type === 'start' && parkedIds.has(event.jobId));
    const latest = Math.max(...starts.map((event) => event.at)) - killedAt;
    process.stdout.write(
      `key-concurrency (${fair === false ? 'arrival order' : 'fair'}): after the kill, the last queued job started ${Math.round(latest)} ms later\n`,
    );
    const FEEDER_LEASE_MS = 5000;
    expect(latest).toBeLessThanOrEqual((fair === false ? LEASE_MS : Math.max(LEASE_MS, FEEDER_LEASE_MS)) + 2000);
    // The killed handlers stopped with their process: they ran until the kill.
    const killed = collected.events
      .filter((event) => event.worker === doomed.child.pid?.toString() || event.attempt === 1)
      .filter((event) => event.type === 'start' && holderIds.has(event.jobId))
      .map((event) => ({ ...event, type: 'end' as const, at: killedAt }));
    expect(maxConcurrentByKey([...collected.events, ...killed]).get('held')).toBeLessThanOrEqual(2);
  }, 60000);
});
