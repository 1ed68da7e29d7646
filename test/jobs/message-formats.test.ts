import { waitFor } from '@berth/local-infra/testing';
import type { INestApplicationContext } from '@nestjs/common';
import { publishMessage } from '@berth/messaging';
import {
  CRON_QUEUE_NAME,
  CronProcessor,
  Process,
  listDeadLetters,
  replayDeadLetter,
  createJobProducer,
  type JobInfo,
} from '@berth/jobs';
import { captureLogs, startNats, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const logs = captureLogs('warn');
let nats: NatsFixture;
let app: INestApplicationContext;
const received: { data: unknown; info: JobInfo }[] = [];

@CronProcessor({ pattern: '*/10 * * * *' })
class EveryTenMinutesCronJob {
  @Process(EveryTenMinutesCronJob.name)
  async handle(data: unknown, info: JobInfo): Promise<void> {
    received.push({ data, info });
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    logContext: logs.logContext,
    queues: [],
    providers: [EveryTenMinutesCronJob],
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

describe('job messages not written by add', () => {
  it('runs a plain message (a scheduler tick, a `nats pub`): the body is the data, Berth-Job-Id the job id', async () => {
    await publishMessage(nats.messaging.js, {
      subject: `jobs.${CRON_QUEUE_NAME}.EveryTenMinutesCronJob`,
      data: JSON.stringify({ scheduledAt: '2026-11-30T08:10:00.000Z' }),
      msgId: 'cron:EveryTenMinutesCronJob:2026-11-30T08:10:00.000Z',
      headers: {
        'Berth-Job-Id': 'cron:EveryTenMinutesCronJob:2026-11-30T08:10:00.000Z',
        'Berth-Job-Name': 'EveryTenMinutesCronJob',
      },
    });
    await publishMessage(nats.messaging.js, { subject: `jobs.${CRON_QUEUE_NAME}.EveryTenMinutesCronJob`, data: '' });
    await waitFor(() => received.length === 2, { what: 'both messages', timeoutMs: 5000 });
    expect(received[0]).toMatchObject({
      data: { scheduledAt: '2026-11-30T08:10:00.000Z' },
      info: {
        id: 'cron:EveryTenMinutesCronJob:2026-11-30T08:10:00.000Z',
        name: 'EveryTenMinutesCronJob',
        queue: CRON_QUEUE_NAME,
        attempt: 1,
      },
    });
    expect(received[1]).toMatchObject({ data: null, info: { id: expect.stringMatching(/^JOBS-\d+$/) } });
  });

  it('dead-letters an unreadable message at once, as not replayable', async () => {
    await publishMessage(nats.messaging.js, {
      subject: `jobs.${CRON_QUEUE_NAME}.EveryTenMinutesCronJob`,
      data: 'not json',
      msgId: 'garbage-1',
    });
    const letter = await waitFor(
      async () => (await listDeadLetters(nats.messaging)).find((l) => l.jobId === 'garbage-1'),
      { what: 'the dead letter', timeoutMs: 5000 },
    );
    expect(letter).toMatchObject({
      reason: 'invalid',
      unreadable: true,
      data: 'not json',
      attempts: 1,
      name: 'EveryTenMinutesCronJob',
    });
    await expect(
      replayDeadLetter(
        nats.messaging,
        createJobProducer({ messaging: nats.messaging, logger: logs.logger }),
        letter.id,
      ),
    ).rejects.toThrow("can't be replayed");
  });

  it('dead-letters a job no worker runs (replayable once one does)', async () => {
    await publishMessage(nats.messaging.js, {
      subject: `jobs.${CRON_QUEUE_NAME}.RetiredCronJob`,
      data: '{}',
      msgId: 'retired-1',
    });
    const letter = await waitFor(
      async () => (await listDeadLetters(nats.messaging)).find((l) => l.jobId === 'retired-1'),
      { what: 'the dead letter', timeoutMs: 5000 },
    );
    expect(letter).toMatchObject({ reason: 'invalid', name: 'RetiredCronJob', error: { name: 'UnknownJobError' } });
    expect(letter.unreadable).toBeUndefined();
  });
});
