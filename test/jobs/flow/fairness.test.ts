import { Kvm } from '@nats-io/kv';
import { BUCKETS } from '@berth/contract';
import { waitFor } from '@berth/local-infra/testing';
import { createJobProducer, explainJob, listDeadLetters, type AddedJob } from '@berth/jobs';
import type { FlowJobData } from '../fixtures/flow-events';
import { collectFlowEvents, flowWorkerFixture } from '../support/flow-worker-process';
import { uniqueQueue } from '../support/infra';
import { maxConcurrentByKey } from './concurrency-stats';

const flow = flowWorkerFixture('error');
const { logs } = flow;

async function startWorkers(queue: string, count: number, concurrency = 8): Promise<void> {
  return flow.startWorkers(count, { FLOW_QUEUE: queue, WORKER_CONCURRENCY: String(concurrency), QUEUE_FAIRNESS: '1' });
}

/** Adds `count` jobs, at most `window` at a time. */
async function addMany(count: number, window: number, add: () => Promise<AddedJob>): Promise<AddedJob[]> {
  const added: AddedJob[] = [];
  for (let from = 0; from < count; from += window)
    added.push(...(await Promise.all(Array.from({ length: Math.min(window, count - from) }, add))));
  return added;
}

describe('fair queueing across two worker processes', () => {
  it("runs a key's 10 jobs among the next few hundred starts while another key has 10,000 waiting", async () => {
    const queue = uniqueQueue('flow-fair');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    const BIG = 10000;
    // A first worker provisions the fair queue, then stops, so that all of the big key's jobs wait before any runs:
    // added while workers ran, thousands were done by the time the last was added on a loaded machine (4,203 were
    // left in one CI run).
    await startWorkers(queue, 1);
    await flow.workers[flow.workers.length - 1].stop(5000);
    await addMany(BIG, 1000, () =>
      producer.add(queue, 'FlowJob', { key: 'big', workMs: 5 } satisfies FlowJobData, { fair: { key: 'big' } }),
    );
    await startWorkers(queue, 2);
    const starts = () => collected.events.filter((event) => event.type === 'start');
    await waitFor(() => starts().length >= 500, { what: 'the big key to be running', timeoutMs: 30000 });
    const addedAt = performance.timeOrigin + performance.now();
    const bigStartedBefore = starts().length;
    const small = await addMany(10, 10, () =>
      producer.add(queue, 'FlowJob', { key: 'small', workMs: 5 } satisfies FlowJobData, { fair: { key: 'small' } }),
    );
    const smallIds = new Set(small.map((job) => job.id));
    await waitFor(() => collected.events.filter((e) => e.type === 'end').length >= BIG + 10, {
      what: 'every job',
      timeoutMs: 120000,
    });
    collected.close();

    const sequence = starts().sort((a, b) => a.at - b.at);
    expect(sequence).toHaveLength(BIG + 10);
    const lastSmall = Math.max(...sequence.flatMap((event, index) => (smallIds.has(event.jobId) ? [index] : [])));
    const bigAfterAdd = sequence
      .slice(0, lastSmall)
      .filter((event) => event.key === 'big' && event.at >= addedAt).length;
    process.stdout.write(
      `fairness: the small key's 10 jobs were added after ${bigStartedBefore} big starts, with ${BIG - bigStartedBefore} big jobs waiting; ` +
        `the last of them started at position ${lastSmall + 1} of ${sequence.length}, ${bigAfterAdd} big starts after the add\n`,
    );
    // The big key still had thousands waiting: served in order, the small key's jobs would come after all of them.
    expect(BIG - bigStartedBefore).toBeGreaterThan(5000);
    // Served fairly, they wait behind what was already moved to JOBS or held by a worker: a few messages of the big key.
    expect(bigAfterAdd).toBeLessThan(1000);
    expect(await listDeadLetters(flow.nats.messaging, { queue })).toEqual([]);
  }, 180000);

  it('gives a key of weight 3 three turns to one of weight 1 while both have jobs waiting', async () => {
    const queue = uniqueQueue('flow-fair-weights');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    await startWorkers(queue, 1, 2);
    // One job per message, so a turn is one job.
    const producer = createJobProducer({
      messaging: flow.nats.messaging,
      logger: logs.logger,
      batching: { maxJobsPerMessage: 1 },
    });
    const add = (key: string, weight: number) => () =>
      producer.add(queue, 'FlowJob', { key, workMs: 20 } satisfies FlowJobData, { fair: { key, weight } });
    const [, light] = await Promise.all([addMany(150, 150, add('heavy', 3)), addMany(150, 150, add('light', 1))]);
    // The last light job waits its turn for seconds (a quarter of the turns go to its key).
    const explained = await explainJob(flow.nats.messaging, queue, light[light.length - 1].id);
    expect(explained.reason).toMatch(/^waits for the fair turn of key light in JOBS_FAIR: \d+ message/);
    await waitFor(() => collected.events.filter((e) => e.type === 'end').length >= 300, {
      what: 'every job',
      timeoutMs: 60000,
    });
    collected.close();
    const keys = collected.events
      .filter((event) => event.type === 'start')
      .sort((a, b) => a.at - b.at)
      .map((event) => event.key as string);
    const first = keys.slice(0, 120);
    const heavy = first.filter((key) => key === 'heavy').length;
    const lights = first.length - heavy;
    process.stdout.write(`fairness: weights 3 and 1: of the first 120 starts ${heavy} heavy, ${lights} light\n`);
    expect(heavy / lights).toBeGreaterThan(2);
    expect(heavy / lights).toBeLessThan(4.5);
  }, 120000);

  it('starts the first job of a key with 10 within a second while a key has 10,000 waiting, none added with fair', async () => {
    const queue = uniqueQueue('flow-fair-keyed');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    // Workers with the default queue options: fairness is on unless turned off.
    const env = { FLOW_QUEUE: queue, WORKER_CONCURRENCY: '8' };
    const BIG = 10000;
    const keyed = (key: string) => () =>
      producer.add(queue, 'FlowJob', { key, workMs: 5 } satisfies FlowJobData, { concurrency: { key, limit: 2 } });
    // As above: a first worker provisions the queue and stops, so the big key's jobs all wait before any runs.
    await flow.startWorkers(1, env);
    await flow.workers[flow.workers.length - 1].stop(5000);
    await addMany(BIG, 1000, keyed('big'));
    await flow.startWorkers(3, env);
    const starts = () => collected.events.filter((event) => event.type === 'start');
    await waitFor(() => starts().length >= 1, { what: 'the big key to be running', timeoutMs: 30000 });
    const addedAt = performance.timeOrigin + performance.now();
    const small = new Set((await addMany(10, 10, keyed('small'))).map((job) => job.id));
    const smallEvents = (type: string) =>
      collected.events.filter((event) => event.type === type && small.has(event.jobId));
    await waitFor(() => smallEvents('end').length >= small.size, { what: "the small key's jobs", timeoutMs: 30000 });
    const bigStarted = starts().filter((event) => event.key === 'big').length;
    collected.close();

    const firstSmallMs = Math.min(...smallEvents('start').map((event) => event.at)) - addedAt;
    const lastSmallMs = Math.max(...smallEvents('start').map((event) => event.at)) - addedAt;
    process.stdout.write(
      `fairness: keyed jobs without fair: the small key's first job started ${Math.round(firstSmallMs)} ms after its add, ` +
        `its last ${Math.round(lastSmallMs)} ms, while ${BIG - bigStarted} of the big key's ${BIG} still waited\n`,
    );
    // In arrival order the small key's jobs would wait for the big key's 10,000 (at 2 at a time).
    expect(BIG - bigStarted).toBeGreaterThan(9000);
    expect(firstSmallMs).toBeLessThanOrEqual(1000);
    // Per-key concurrency stays exact through the feeder.
    const max = maxConcurrentByKey(collected.events);
    expect(max.get('big')).toBeLessThanOrEqual(2);
    expect(max.get('small')).toBeLessThanOrEqual(2);
  }, 180000);

  it("loses and repeats no fair job when the feeder's process is killed", async () => {
    const queue = uniqueQueue('flow-fair-kill');
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    // The first worker takes the feeder's lease and keeps renewing it; the two started after it find it held.
    await startWorkers(queue, 1, 4);
    const doomed = flow.workers[flow.workers.length - 1];
    const windows = await new Kvm(flow.nats.messaging.js).open(BUCKETS.jobWindows);
    const lease = () => windows.get(`f.${queue}`);
    const firstOwner = await waitFor(async () => (await lease())?.json<{ owner: string }>().owner || undefined, {
      what: 'the first worker to hold the feeder lease',
    });
    await startWorkers(queue, 2, 4);
    const JOBS = 3000;
    const ids = new Set(
      (
        await addMany(JOBS, 1000, () =>
          producer.add(queue, 'FlowJob', { key: 'k', workMs: 2 } satisfies FlowJobData, {
            fair: { key: `k${Math.floor(Math.random() * 20)}` },
          }),
        )
      ).map((job) => job.id),
    );
    const starts = () => collected.events.filter((event) => event.type === 'start');
    await waitFor(() => starts().length >= 600, { what: '600 jobs started', timeoutMs: 60000 });
    doomed.child.kill('SIGKILL');
    expect((await doomed.exited).signal).toBe('SIGKILL');
    const doomedName = `${queue}-w${flow.workers.indexOf(doomed) + 1}`;
    await waitFor(() => new Set(starts().map((event) => event.jobId)).size >= JOBS, {
      what: 'every job started',
      timeoutMs: 120000,
    });
    collected.close();

    expect(new Set(starts().map((event) => event.jobId))).toEqual(ids);
    // A job runs again only if the killed process had it in hand; a job moved twice would run twice elsewhere.
    const firstStart = new Map<string, string>();
    const repeated: string[] = [];
    for (const event of starts().sort((a, b) => a.at - b.at)) {
      if (firstStart.has(event.jobId) && firstStart.get(event.jobId) !== doomedName) repeated.push(event.jobId);
      if (!firstStart.has(event.jobId)) firstStart.set(event.jobId, event.worker);
    }
    const newOwner = (await lease())?.json<{ owner: string }>().owner;
    process.stdout.write(
      `fairness: the feeder's process killed after 600 of ${JOBS} starts; ` +
        `${[...firstStart.values()].filter((w) => w === doomedName).length} jobs first started there, ` +
        `${repeated.length} repeated elsewhere; lease ${firstOwner} -> ${newOwner}\n`,
    );
    expect(repeated).toEqual([]);
    expect(newOwner).not.toBe(firstOwner);
  }, 180000);

  it('refuses a fair job on a queue whose workers do not serve fairness', async () => {
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    await expect(producer.add(uniqueQueue('flow-unfair'), 'FlowJob', {}, { fair: { key: 'k' } })).rejects.toThrow(
      /does not serve fair jobs/,
    );
  });
});
