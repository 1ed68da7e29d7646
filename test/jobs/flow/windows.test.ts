import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import {
  DELAYED_JOBS_STREAM_NAME,
  getMessageQueueToken,
  Process,
  Processor,
  queueConsumerName,
  type JobInfo,
  type MessageQueueService,
} from '@berth/jobs';
import { captureLogs, startNats, uniqueQueue, type NatsFixture } from '../support/infra';
import { createJobsApp } from '../support/jobs-app';

const logs = captureLogs('warn');
const queue = uniqueQueue('flow-windows');
const runs: { id: string; n: number; at: number }[] = [];

@Processor({ queueName: queue })
class WindowJob {
  @Process(WindowJob.name)
  async handle(data: { n: number }, info: JobInfo): Promise<void> {
    runs.push({ id: info.id, n: data.n, at: Date.now() });
  }
}

let nats: NatsFixture;
const apps: INestApplicationContext[] = [];

beforeAll(async () => {
  nats = await startNats(logs.logger);
  for (const name of ['a', 'b']) {
    const messaging = name === 'a' ? nats.messaging : await nats.connect(name);
    apps.push(await createJobsApp({ messaging, logger: logs.logger, queues: [queue], providers: [WindowJob] }));
  }
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await nats?.stop();
});

const service = (n: number) => apps[n % apps.length].get<MessageQueueService>(getMessageQueueToken(queue));

describe('throttle and debounce windows', () => {
  it('throttle: runs the first job of a window and drops the others, from any producer; the next window opens after ms', async () => {
    const first = await service(0).add(WindowJob.name, { n: 1 }, { throttle: { key: 'ws_t', ms: 1000 } });
    const dropped = await Promise.all(
      [2, 3, 4, 5].map((n) => service(n).add(WindowJob.name, { n }, { throttle: { key: 'ws_t', ms: 1000 } })),
    );
    expect(first.dropped).toBeUndefined();
    expect(dropped.every((added) => added.dropped === 'throttled' && added.id === first.id)).toBe(true);
    await waitFor(() => runs.some((run) => run.id === first.id), { what: 'the first job', timeoutMs: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const next = await service(1).add(WindowJob.name, { n: 6 }, { throttle: { key: 'ws_t', ms: 1000 } });
    expect(next.dropped).toBeUndefined();
    await waitFor(() => runs.some((run) => run.id === next.id), { what: 'the next window', timeoutMs: 5000 });
    expect(
      runs
        .filter((run) => run.n <= 6)
        .map((run) => run.n)
        .sort(),
    ).toEqual([1, 6]);
  });

  it('debounce: of a burst only the last job runs, ms after it was added', async () => {
    const added: { id: string; at: number }[] = [];
    for (let n = 11; n <= 15; n++) {
      const job = await service(n).add(WindowJob.name, { n }, { debounce: { key: 'ws_d', ms: 600 } });
      added.push({ id: job.id, at: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const last = added[added.length - 1];
    const run = await waitFor(() => runs.find((r) => r.id === last.id), {
      what: 'the last job of the burst',
      timeoutMs: 5000,
    });
    expect(run.at - last.at).toBeGreaterThanOrEqual(600);
    await waitFor(
      async () => {
        const info = await nats.messaging.jsm.consumers.info(DELAYED_JOBS_STREAM_NAME, queueConsumerName(queue));
        return info.num_pending + info.num_ack_pending === 0 && info.delivered.stream_seq >= 5;
      },
      { what: 'every debounced job to come due and settle', timeoutMs: 5000 },
    );
    expect(runs.filter((r) => r.n >= 11).map((r) => r.n)).toEqual([15]);
  });
});
