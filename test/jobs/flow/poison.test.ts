import { waitFor } from '@berth/local-infra/testing';
import { createJobProducer, JOBS_STREAM_NAME, listDeadLetters, queueConsumerName } from '@berth/jobs';
import type { FlowJobData } from '../fixtures/flow-events';
import { collectFlowEvents, flowWorkerFixture, startFlowWorker } from '../support/flow-worker-process';
import { uniqueQueue } from '../support/infra';

const flow = flowWorkerFixture('warn', { stopMs: 2000 });
const { logs, workers } = flow;
const queue = uniqueQueue('flow-poison');

describe('a job that kills its worker process each time it runs', () => {
  it('is dead-lettered with reason poison after POISON_LIMIT deaths, a failed attempt not counting as one', async () => {
    const collected = collectFlowEvents(flow.nats.messaging, queue);
    const start = (n: number) =>
      startFlowWorker({
        NATS_URL: flow.nats.server.url,
        WORKER_NAME: `worker-${n}`,
        FLOW_QUEUE: queue,
        WORKER_ACK_WAIT_MS: '1000',
        POISON_LIMIT: '2',
      });
    const producer = createJobProducer({ messaging: flow.nats.messaging, logger: logs.logger });
    // Attempt 1 throws (the worker naks it: not a death); attempts 2 and 3 exit the process.
    const added = await producer.add(
      queue,
      'FlowJob',
      { failOnAttempts: [1], exitOnAttempts: [2, 3, 4, 5] } satisfies FlowJobData,
      { retryLimit: 10 },
    );

    const exits: { code: number | null; signal: NodeJS.Signals | null }[] = [];
    let letter;
    for (let n = 1; n <= 5 && !letter; n++) {
      const worker = await start(n);
      workers.push(worker);
      const outcome = await Promise.race([
        worker.exited.then((exit) => ({ exit })),
        waitFor(async () => (await listDeadLetters(flow.nats.messaging, { queue })).find((l) => l.jobId === added.id), {
          what: 'a death or the dead letter',
          timeoutMs: 20000,
        }).then((found) => ({ found })),
      ]);
      if ('exit' in outcome) exits.push(outcome.exit);
      else letter = outcome.found;
    }
    collected.close();

    expect(exits).toEqual([
      { code: 70, signal: null },
      { code: 70, signal: null },
    ]);
    expect(letter).toMatchObject({
      jobId: added.id,
      queue,
      name: 'FlowJob',
      reason: 'poison',
      attempts: 4,
      error: {
        name: 'PoisonMessageError',
        message: 'A worker died 2 times while running this job (poison limit reached)',
      },
    });
    // The handler started three times (attempt 1 failed, 2 and 3 died); the fourth delivery was set aside unrun.
    expect(collected.events.filter((event) => event.type === 'start').map((event) => event.attempt)).toEqual([1, 2, 3]);
    await waitFor(
      async () =>
        (await flow.nats.messaging.jsm.consumers.info(JOBS_STREAM_NAME, queueConsumerName(queue))).num_ack_pending ===
        0,
      { what: 'the message to be terminated', timeoutMs: 5000 },
    );
    // The surviving worker is still up.
    const survivor = workers[workers.length - 1];
    expect(survivor.child.exitCode).toBeNull();
  }, 90000);
});
