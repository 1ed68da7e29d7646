import { randomUUID } from 'node:crypto';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { waitFor } from '@berth/local-infra/testing';
import { createLogger } from '@berth/logger';
import { connectMessaging, isNotFound, type Messaging } from '@berth/messaging';
import { createJobProducer } from '../drivers/jetstream/create-job-producer';
import type { JetStreamJobProducer } from '../drivers/jetstream/jetstream-job-producer';
import type { JobRecord } from '../job-record';
import { DELAYED_JOBS_STREAM_NAME, delayedJobsFilter, dueQueueFilterSubject } from '../names';
import { promoteJob, type PromotedJob } from './promote-job';

const logger = createLogger({ service: 'promote-job-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;
let producer: JetStreamJobProducer;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'promote-job-test', logger });
  producer = createJobProducer({ messaging, logger });
});

afterAll(async () => {
  await messaging?.close();
  await server?.stop();
});

const uniqueQueue = () => `promote-${randomUUID().slice(0, 8)}`;

/** The job ids of every due message of a queue (no consumer reads them here, so they stay in the stream). */
async function dueJobIds(queue: string): Promise<string[]> {
  const ids: string[] = [];
  for (let seq = 0; ;) {
    const message = await messaging.jsm.streams
      .getMessage(DELAYED_JOBS_STREAM_NAME, { seq, next_by_subj: dueQueueFilterSubject(queue) } as never)
      .catch((error: unknown) => (isNotFound(error) ? null : Promise.reject(error)));
    if (!message) return ids;
    ids.push(...message.json<JobRecord[]>().map((record) => record.id));
    seq = message.seq + 1;
  }
}

/** Schedules of the queue still waiting in JOBS_DELAYED. */
async function waitingSchedules(queue: string): Promise<number> {
  const info = await messaging.jsm.streams.info(DELAYED_JOBS_STREAM_NAME, {
    subjects_filter: delayedJobsFilter(queue),
  });
  return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
}

describe('promoteJob', () => {
  it('releases a job delayed by an hour now, once, with its data and name; a second promote finds nothing', async () => {
    const queue = uniqueQueue();
    const added = await producer.add(queue, 'SendReportJob', { reportId: 'r_1' }, { delayInMilliseconds: 3_600_000 });
    const promoted = await promoteJob(messaging, queue, added.id);
    expect(promoted).toMatchObject({ queue, jobId: added.id, name: 'SendReportJob', promoted: true });
    expect(Date.parse(promoted.previousNotBefore!)).toBeGreaterThan(Date.now() + 3_500_000);

    const released = await waitFor(() => dueJobIds(queue), {
      what: 'the promoted job on its due subject',
      until: (ids) => ids.length > 0,
    });
    expect(released).toEqual([added.id]);
    await waitFor(() => waitingSchedules(queue), { what: 'the schedule to be gone', until: (count) => count === 0 });
    expect(await promoteJob(messaging, queue, added.id)).toMatchObject({ promoted: false });
    expect(await dueJobIds(queue)).toEqual([added.id]);
  });

  it('answers promoted: false for a job that is not delayed', async () => {
    const queue = uniqueQueue();
    const added = await producer.add(queue, 'SendReportJob', { reportId: 'r_2' });
    expect(await promoteJob(messaging, queue, added.id)).toMatchObject({ promoted: false, jobId: added.id });
    expect(await promoteJob(messaging, queue, 'no-such-job')).toMatchObject({ promoted: false });
  });

  it('releases each job exactly once when promotes race the server releasing them as they fall due', async () => {
    const queue = uniqueQueue();
    const start = Date.now();
    // Due one after the other, 20 ms apart; each promoted twice, later and later after it fell due.
    const jobs = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        producer.add(queue, 'SendReportJob', { reportId: `race-${n}` }, { delayInMilliseconds: 300 + n * 20 }),
      ),
    );
    const results: Promise<PromotedJob>[] = [];
    for (const [n, job] of jobs.entries()) {
      // From promoted well before the server releases it to well after, with a lag growing by 25 ms a job.
      await waitFor(() => Date.now() >= start + 300 + n * 45, { what: `job ${n} to fall due`, intervalMs: 1 });
      results.push(promoteJob(messaging, queue, job.id), promoteJob(messaging, queue, job.id));
    }
    const settled = await Promise.all(results);
    await waitFor(() => waitingSchedules(queue), { what: 'every schedule to be released', until: (n) => n === 0 });
    const released = await waitFor(() => dueJobIds(queue), {
      what: 'every job on its due subject',
      until: (ids) => ids.length >= jobs.length,
    });
    expect([...released].sort()).toEqual(jobs.map((job) => job.id).sort());
    for (const job of jobs)
      expect(settled.filter((result) => result.jobId === job.id && result.promoted).length).toBeLessThanOrEqual(1);
    // Both sides won some: promotes before the server's release and releases before the promote.
    const promoted = settled.filter((result) => result.promoted).length;
    expect(promoted).toBeGreaterThan(0);
    expect(promoted).toBeLessThan(jobs.length);
  });
});
