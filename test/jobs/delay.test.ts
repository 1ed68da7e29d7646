import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import { Process, Processor, getMessageQueueToken, getQueueDepths, type MessageQueueService } from '@berth/jobs';
import { captureLogs, startNats, uniqueQueue, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const logs = captureLogs('warn');
let nats: NatsFixture;
let app: INestApplicationContext;
const queue = uniqueQueue('delay');
const ranAt = new Map<string, number>();

type StampData = { key: string };

@Processor({ queueName: queue })
class StampJob {
  @Process(StampJob.name)
  async handle({ key }: StampData): Promise<void> {
    ranAt.set(key, Date.now());
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    logContext: logs.logContext,
    queues: [queue],
    providers: [StampJob],
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

const queueService = () => app.get<MessageQueueService>(getMessageQueueToken(queue));

describe('delayInMilliseconds', () => {
  it('runs the job no sooner than the delay, without holding up other jobs', async () => {
    const addedAt = Date.now();
    await queueService().add<StampData>(StampJob.name, { key: 'delayed' }, { delayInMilliseconds: 1500 });
    await queueService().add<StampData>(StampJob.name, { key: 'now' });
    await waitFor(() => ranAt.has('now'), { what: 'the immediate job', timeoutMs: 3000 });
    expect(ranAt.has('delayed')).toBe(false);
    const depth = (await getQueueDepths(nats.messaging)).find((entry) => entry.queue === queue);
    expect(depth?.delayed).toBe(1);
    await waitFor(() => ranAt.has('delayed'), { what: 'the delayed job', timeoutMs: 5000 });
    const waited = ranAt.get('delayed')! - addedAt;
    expect(waited).toBeGreaterThanOrEqual(1500);
    expect(waited).toBeLessThan(1500 + 1000);
    expect((await getQueueDepths(nats.messaging)).find((entry) => entry.queue === queue)?.delayed).toBe(0);
  });

  it('keeps many delayed jobs without using consumer slots', async () => {
    const keys = Array.from({ length: 200 }, (_, index) => `many-${index}`);
    await Promise.all(
      keys.map((key) => queueService().add<StampData>(StampJob.name, { key }, { delayInMilliseconds: 800 })),
    );
    await queueService().add<StampData>(StampJob.name, { key: 'after-many' });
    await waitFor(() => ranAt.has('after-many'), { what: 'an immediate job behind 200 delayed ones', timeoutMs: 3000 });
    await waitFor(() => keys.every((key) => ranAt.has(key)), { what: 'the 200 delayed jobs', timeoutMs: 8000 });
  });
});
