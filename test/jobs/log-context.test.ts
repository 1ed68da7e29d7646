import { waitFor } from '@berth/local-infra/testing';
import { Inject, type INestApplicationContext } from '@nestjs/common';
import type { BerthLogger } from '@berth/logger';
import { Process, Processor, getMessageQueueToken, type MessageQueueService } from '@berth/jobs';
import { captureLogs, startNats, uniqueQueue, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const logs = captureLogs('info');
let nats: NatsFixture;
let app: INestApplicationContext;
const queue = uniqueQueue('logs');
const seen = new Set<number>();

@Processor({ queueName: queue })
class ChattyJob {
  constructor(@Inject('LOGGER') private readonly logger: BerthLogger) {}

  @Process(ChattyJob.name)
  async handle({ n, failFirst }: { n: number; failFirst?: boolean }): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.logger.info({ n }, `working on ${n}`);
    if (failFirst && !seen.has(n)) {
      seen.add(n);
      throw new Error(`first attempt of ${n} fails`);
    }
    seen.add(n);
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    logContext: logs.logContext,
    queues: [queue],
    providers: [ChattyJob, { provide: 'LOGGER', useValue: logs.logger }],
    queueOptions: { [queue]: { backoff: { baseDelayMs: 50, jitter: 0 } } },
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

describe('log lines written during a job', () => {
  it('carry jobName, jobId, queue and attempt, for a job alone in its message and for jobs of a burst', async () => {
    const service = app.get<MessageQueueService>(getMessageQueueToken(queue));
    const single = await service.add(ChattyJob.name, { n: 1, failFirst: true });
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) => service.add(ChattyJob.name, { n: 100 + i, failFirst: i === 5 })),
    );
    await waitFor(
      () => seen.size === 41 && logs.lines.filter((line) => String(line.msg).startsWith('working on')).length === 43,
      { what: 'every job', timeoutMs: 10000 },
    );

    const working = logs.lines.filter((line) => String(line.msg).startsWith('working on'));
    for (const line of working) {
      expect(line).toMatchObject({ jobName: 'ChattyJob', queue });
      expect(typeof line.jobId).toBe('string');
      expect([1, 2]).toContain(line.attempt);
    }
    const first = working.filter((line) => line.n === 1);
    expect(first.map((line) => [line.jobId, line.attempt])).toEqual([
      [single.id, 1],
      [single.id, 2],
    ]);
    const flaky = working.filter((line) => line.n === 105);
    expect(flaky.map((line) => [line.jobId, line.attempt])).toEqual([
      [burst[5].id, 1],
      [burst[5].id, 2],
    ]);
    const ids = new Set(working.filter((line) => (line.n as number) >= 100).map((line) => line.jobId));
    expect(ids).toEqual(new Set(burst.map((job) => job.id)));

    const failures = logs.lines.filter((line) => String(line.msg).startsWith('Attempt 1 failed'));
    expect(failures.map((line) => line.jobId).sort()).toEqual([single.id, burst[5].id].sort());
    for (const line of failures) expect(line).toMatchObject({ jobName: 'ChattyJob', queue, attempt: 1, retryInMs: 50 });
  });
});
