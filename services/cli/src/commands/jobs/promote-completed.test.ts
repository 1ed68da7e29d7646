import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { waitFor } from '@berth/local-infra/testing';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import {
  completedJobSubject,
  createJobProducer,
  explainJob,
  provisionJobInfrastructure,
  type CompletedJob,
  type PromotedJob,
} from '@berth/jobs';
import { runCliCaptured, type CapturedCliRun } from '../../testing';

const logger = createLogger({ service: 'cli-promote-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'cli-promote-test', logger });
  await provisionJobInfrastructure(messaging);
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

function berth(...argv: string[]): Promise<CapturedCliRun> {
  return runCliCaptured(argv, { natsUrl: server.url });
}

describe('berth jobs promote', () => {
  it('runs a delayed job now, and says so; a second promote changes nothing and exits 1', async () => {
    const producer = createJobProducer({ messaging, logger });
    const job = await producer.add(
      'report-queue',
      'SendReportJob',
      { reportId: 'r_1' },
      { delayInMilliseconds: 3_600_000 },
    );
    const promoted = await berth('jobs', 'promote', 'report-queue', job.id);
    expect(promoted.code).toBe(0);
    expect(promoted.out).toMatch(/^QUEUE\s+JOB\s+PROMOTED\s+WAS DUE AT$/m);
    expect(promoted.out).toMatch(new RegExp(`report-queue\\s+${job.id}\\s+yes\\s+\\S+`));
    // The server releases the new schedule within its next check (at most 250 ms).
    await waitFor(() => explainJob(messaging, 'report-queue', job.id), {
      what: 'the promoted job to be released',
      until: (where) => where.state !== 'delayed',
    });

    const again = await berth('jobs', 'promote', 'report-queue', job.id, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out) as PromotedJob[]).toEqual([expect.objectContaining({ promoted: false })]);
  });

  it('refuses a wrong invocation', async () => {
    const wrong = await berth('jobs', 'promote', 'report-queue');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/give the queue and the job id/);
  });
});

describe('berth jobs completed', () => {
  it('lists the last completed jobs of a queue, newest first', async () => {
    for (const n of [1, 2, 3]) {
      const record: CompletedJob = {
        queue: 'done-queue',
        name: 'SendReportJob',
        jobId: `job-${n}`,
        data: { n },
        attempt: n,
        retryLimit: 3,
        addedAt: null,
        completedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
        durationMs: 40 + n,
        outcome: 'completed',
      };
      await messaging.js.publish(completedJobSubject('done-queue'), JSON.stringify(record));
    }
    const listed = await berth('jobs', 'completed', 'done-queue', '--limit', '2');
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^COMPLETED AT\s+JOB\s+NAME\s+ATTEMPT\s+TOOK$/m);
    expect(listed.out.indexOf('job-3')).toBeLessThan(listed.out.indexOf('job-2'));
    expect(listed.out).not.toContain('job-1');
    expect(listed.out).toMatch(/job-3\s+SendReportJob\s+3\/4\s+43 ms/);
    expect((await berth('jobs', 'completed', 'empty-queue')).out).toMatch(/No completed job of empty-queue recorded/);
  });
});
