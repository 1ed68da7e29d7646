import { randomUUID } from 'node:crypto';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, ensureStream, type Messaging } from '@berth/messaging';
import type { JobCompletionNotRecordedEvent } from '../job-observer';
import {
  COMPLETED_JOBS_STREAM_NAME,
  completedJobsStream,
  MAX_RECORDED_DATA_BYTES,
  type CompletedJob,
} from './completed-job';
import { listCompletedJobs } from './list-completed-jobs';
import { CompletionRecorder, type CompletionRecorderOptions } from './record-completed-job';

const recordCompletedJob = (options: CompletionRecorderOptions, completed: CompletedJob): Promise<void> =>
  new CompletionRecorder(options).record(completed);

const logger = createLogger({ service: 'completed-jobs-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'completed-jobs-test', logger });
});

afterAll(async () => {
  await messaging?.close();
  await server?.stop();
});

function completed(queue: string, n: number, data: unknown = { n }): CompletedJob {
  return {
    queue,
    name: 'SendReportJob',
    jobId: `job-${n}`,
    data,
    attempt: 1 + (n % 2),
    retryLimit: 3,
    addedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    completedAt: new Date(Date.UTC(2026, 0, 1, 0, 1, n)).toISOString(),
    durationMs: 10 * n,
    outcome: 'completed',
  };
}

describe('completed jobs', () => {
  it('reads nothing, and records nothing but a warning and an observer call, while JOBS_COMPLETED does not exist', async () => {
    const queue = `completed-${randomUUID().slice(0, 8)}`;
    expect(await listCompletedJobs(messaging, queue)).toEqual([]);
    const notRecorded: JobCompletionNotRecordedEvent[] = [];
    await expect(
      recordCompletedJob(
        { js: messaging.js, logger, observer: { jobCompletionNotRecorded: (event) => notRecorded.push(event) } },
        completed(queue, 1),
      ),
    ).resolves.toBeUndefined();
    expect(notRecorded).toEqual([{ queue, name: 'SendReportJob' }]);
  });

  it('keeps the last N of each queue, lists them newest first, and leaves out data too large to keep', async () => {
    await ensureStream(messaging.jsm, completedJobsStream({}, { keepPerQueue: 3 }));
    const [queue, other] = [`completed-${randomUUID().slice(0, 8)}`, `completed-${randomUUID().slice(0, 8)}`];
    const recorder = { js: messaging.js, logger };
    for (const n of [1, 2, 3, 4, 5]) await recordCompletedJob(recorder, completed(queue, n));
    await recordCompletedJob(recorder, completed(other, 9, 'x'.repeat(MAX_RECORDED_DATA_BYTES + 1)));

    const listed = await listCompletedJobs(messaging, queue);
    expect(listed.map((job) => job.jobId)).toEqual(['job-5', 'job-4', 'job-3']);
    expect(listed[0]).toMatchObject({ ...completed(queue, 5), id: expect.stringMatching(/^\d+\.0$/) });
    expect((await listCompletedJobs(messaging, queue, { limit: 1 })).map((job) => job.jobId)).toEqual(['job-5']);
    const [large] = await listCompletedJobs(messaging, other);
    expect(large).toMatchObject({ jobId: 'job-9', dataOmitted: true });
    expect(large.data).toBeUndefined();
    const info = await messaging.jsm.streams.info(COMPLETED_JOBS_STREAM_NAME);
    expect(info.state.messages).toBe(4);
  });

  it('stores one record per attempt: the same attempt recorded twice is kept once', async () => {
    await ensureStream(messaging.jsm, completedJobsStream());
    const queue = `completed-${randomUUID().slice(0, 8)}`;
    const recorder = { js: messaging.js, logger };
    await recordCompletedJob(recorder, completed(queue, 1));
    await recordCompletedJob(recorder, completed(queue, 1));
    await recordCompletedJob(recorder, { ...completed(queue, 1), attempt: 3 });
    expect((await listCompletedJobs(messaging, queue)).map((job) => job.attempt)).toEqual([3, 2]);
  });

  it('stores a burst of records in shared messages (a group commit), and lists every record of it', async () => {
    await ensureStream(messaging.jsm, completedJobsStream());
    const queue = `completed-${randomUUID().slice(0, 8)}`;
    const recorder = new CompletionRecorder({ js: messaging.js, logger });
    const burst = Array.from({ length: 50 }, (_, n) => ({ ...completed(queue, n), jobId: `burst-${n}` }));
    await Promise.all(burst.map((record) => recorder.record(record)));
    const info = await messaging.jsm.streams.info(COMPLETED_JOBS_STREAM_NAME, {
      subjects_filter: `completed-jobs.${queue}`,
    });
    const messages = Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
    expect(messages).toBeGreaterThan(0);
    expect(messages).toBeLessThan(burst.length / 4);
    const listed = await listCompletedJobs(messaging, queue, { limit: 100 });
    expect(listed.map((job) => job.jobId)).toEqual(burst.map((job) => job.jobId).reverse());
  });
});
