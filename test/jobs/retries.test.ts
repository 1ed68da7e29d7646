import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import {
  Process,
  Processor,
  UnrecoverableError,
  createJobProducer,
  getMessageQueueToken,
  listDeadLetters,
  replayDeadLetter,
  type MessageQueueService,
} from '@berth/jobs';
import { captureLogs, startNats, uniqueQueue, waitForQueueSettled, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const logs = captureLogs('warn');
let nats: NatsFixture;
let app: INestApplicationContext;
const queue = uniqueQueue('retries');
const BASE_DELAY_MS = 200;

/** Attempt times per job id, and how each job should behave. */
const attempts = new Map<string, number[]>();
const behaviour = new Map<string, { failTimes: number; unrecoverable?: boolean }>();

type FlakyData = { key: string };

@Processor({ queueName: queue })
class FlakyJob {
  @Process(FlakyJob.name)
  async handle({ key }: FlakyData): Promise<void> {
    const times = attempts.get(key) ?? [];
    times.push(Date.now());
    attempts.set(key, times);
    const plan = behaviour.get(key) ?? { failTimes: 0 };
    if (plan.unrecoverable) throw new UnrecoverableError(`bad data for ${key}`);
    if (times.length <= plan.failTimes) throw new Error(`provider down (${key}, attempt ${times.length})`);
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    logContext: logs.logContext,
    queues: [queue],
    providers: [FlakyJob],
    // No jitter, so the waits are exact: 200 ms, 400 ms, 800 ms…
    queueOptions: { [queue]: { concurrency: 4, backoff: { baseDelayMs: BASE_DELAY_MS, jitter: 0 } } },
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

const queueService = () => app.get<MessageQueueService>(getMessageQueueToken(queue));

describe('retries and dead letters (JetStream)', () => {
  it('retries a failing job with exponential backoff until it succeeds', async () => {
    behaviour.set('flaky', { failTimes: 3 });
    await queueService().add<FlakyData>(FlakyJob.name, { key: 'flaky' });
    const times = await waitFor(() => (attempts.get('flaky')?.length === 4 ? attempts.get('flaky') : undefined), {
      what: '4 attempts',
      timeoutMs: 10000,
    });
    const waits = times.slice(1).map((time, index) => time - times[index]);
    // 200, 400, 800 ms, give or take the scheduling of one loopback round trip.
    expect(waits[0]).toBeGreaterThanOrEqual(BASE_DELAY_MS - 10);
    expect(waits[0]).toBeLessThan(BASE_DELAY_MS + 150);
    expect(waits[1]).toBeGreaterThanOrEqual(2 * BASE_DELAY_MS - 10);
    expect(waits[1]).toBeLessThan(2 * BASE_DELAY_MS + 150);
    expect(waits[2]).toBeGreaterThanOrEqual(4 * BASE_DELAY_MS - 10);
    expect(waits[2]).toBeLessThan(4 * BASE_DELAY_MS + 150);
    expect(await listDeadLetters(nats.messaging, { queue })).toEqual([]);
  });

  it('runs a job that throws UnrecoverableError once and copies it to the dead letters', async () => {
    behaviour.set('poison', { failTimes: 0, unrecoverable: true });
    const added = await queueService().add<FlakyData>(FlakyJob.name, { key: 'poison' }, { retryLimit: 5 });
    const letter = await waitFor(
      async () => (await listDeadLetters(nats.messaging, { queue })).find((l) => l.jobId === added.id),
      { what: 'dead letter', timeoutMs: 5000 },
    );
    expect(letter).toMatchObject({
      queue,
      name: 'FlakyJob',
      reason: 'unrecoverable',
      attempts: 1,
      data: { key: 'poison' },
      error: { name: 'UnrecoverableError', message: 'bad data for poison' },
    });
    await waitForQueueSettled(nats.messaging, queue);
    expect(attempts.get('poison')).toHaveLength(1);
  });

  it('dead-letters a job that exhausts its retries, with data, error and attempts; replay runs it again', async () => {
    behaviour.set('down', { failTimes: 3 });
    const added = await queueService().add<FlakyData>(FlakyJob.name, { key: 'down' }, { retryLimit: 1 });
    const letter = await waitFor(
      async () => (await listDeadLetters(nats.messaging, { queue })).find((l) => l.jobId === added.id),
      { what: 'dead letter', timeoutMs: 5000 },
    );
    expect(letter).toMatchObject({
      queue,
      name: 'FlakyJob',
      reason: 'exhausted',
      attempts: 2,
      retryLimit: 1,
      data: { key: 'down' },
      error: { name: 'Error', message: 'provider down (down, attempt 2)' },
      originalSubject: `jobs.${queue}.FlakyJob`,
    });
    expect(letter.originalStreamSequence).toBeGreaterThan(0);
    expect(attempts.get('down')).toHaveLength(2);

    // Fix the cause (the third attempt succeeds), then replay.
    const replayed = await replayDeadLetter(
      nats.messaging,
      createJobProducer({ messaging: nats.messaging, logger: logs.logger }),
      letter.id,
    );
    expect(replayed).toMatchObject({ id: letter.id, queue, name: 'FlakyJob', replayOf: added.id, deduplicated: false });
    await waitFor(() => attempts.get('down')?.length === 4, { what: 'the replayed job to succeed', timeoutMs: 10000 });
    expect((await listDeadLetters(nats.messaging, { queue })).some((l) => l.id === letter.id)).toBe(false);
    expect((await listDeadLetters(nats.messaging, { queue })).some((l) => l.replayOf === added.id)).toBe(false);
  });

  it('logs each failed attempt naming the job', async () => {
    const failures = logs.lines.filter(
      (line) => String(line.msg).startsWith('Attempt 1 failed') && line.queue === queue,
    );
    expect(failures.length).toBeGreaterThan(0);
    for (const line of failures) expect(line).toMatchObject({ jobName: 'FlakyJob', queue, attempt: 1 });
    expect(failures.every((line) => typeof line.jobId === 'string')).toBe(true);
  });
});
