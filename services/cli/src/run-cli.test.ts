import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import {
  JOBS_STREAM_NAME,
  provisionJobInfrastructure,
  writeDeadLetter,
  type DeadLetter,
  type QueueDepth,
  type StoredDeadLetter,
} from '@berth/jobs';
import { runCliCaptured, type CapturedCliRun } from './testing';

const logger = createLogger({ service: 'cli-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'cli-test', logger });
  await provisionJobInfrastructure(messaging);
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

function berth(...argv: string[]): Promise<CapturedCliRun> {
  return runCliCaptured(argv, { natsUrl: server.url });
}

function letter(jobId: string, queue: string): DeadLetter {
  return {
    jobId,
    queue,
    name: 'SendClientSummaryJob',
    data: { workspaceId: jobId },
    reason: 'exhausted',
    attempts: 4,
    retryLimit: 3,
    error: { name: 'Error', message: 'provider down' },
    failedAt: '2026-11-30T08:00:00.000Z',
    originalSubject: `jobs.${queue}.SendClientSummaryJob`,
    originalStreamSequence: 7,
  };
}

describe('berth jobs', () => {
  it('lists dead letters as a table or JSON, per queue', async () => {
    await writeDeadLetter(messaging.js, letter('job-1', 'client-queue'));
    await writeDeadLetter(messaging.js, letter('job-2', 'client-queue'));
    await writeDeadLetter(messaging.js, letter('job-3', 'billing-queue'));

    const table = await berth('jobs', 'dead', 'list');
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^ID\s+QUEUE\s+JOB\s+JOB ID\s+REASON\s+ATTEMPTS\s+FAILED AT\s+ERROR$/m);
    expect(table.out).toMatch(
      /^1\s+client-queue\s+SendClientSummaryJob\s+job-1\s+exhausted\s+4\s+2026-11-30T08:00:00.000Z\s+Error: provider down$/m,
    );
    expect(table.out).toContain('3 dead letter(s)');

    const json = await berth('jobs', 'dead', 'list', '--queue', 'billing-queue', '--json');
    const letters = JSON.parse(json.out) as StoredDeadLetter[];
    expect(letters.map((l) => [l.id, l.jobId, l.queue])).toEqual([[3, 'job-3', 'billing-queue']]);
  });

  it('shows queue depths', async () => {
    const { code, out } = await berth('jobs', 'queues', '--json');
    expect(code).toBe(0);
    const depths = JSON.parse(out) as QueueDepth[];
    expect(depths.map((d) => [d.queue, d.deadLetters])).toEqual([
      ['billing-queue', 1],
      ['client-queue', 2],
    ]);
    expect((await berth('jobs', 'queues')).out).toMatch(
      /^QUEUE\s+PENDING\s+ACK PENDING\s+REDELIVERED\s+DELAYED\s+DEAD$/m,
    );
  });

  it('replays one dead letter, then all of a queue', async () => {
    const one = await berth('jobs', 'dead', 'replay', '1');
    expect(one.code).toBe(0);
    expect(one.out).toMatch(/^1\s+client-queue\s+SendClientSummaryJob\s+job-1\s+job-1-replay-1$/m);
    const stored = await messaging.jsm.streams.getMessage(JOBS_STREAM_NAME, {
      last_by_subj: 'jobs.client-queue.SendClientSummaryJob',
    });
    expect(stored?.json<{ id: string; data: unknown; replayOf: string; attemptsMade: number }[]>()).toEqual([
      expect.objectContaining({
        id: 'job-1-replay-1',
        data: { workspaceId: 'job-1' },
        replayOf: 'job-1',
        attemptsMade: 0,
        retryLimit: 3,
      }),
    ]);
    expect((await berth('jobs', 'dead', 'replay', '1')).code).toBe(1);

    const all = await berth('jobs', 'dead', 'replay', '--all', '--queue', 'client-queue', '--json');
    expect(JSON.parse(all.out).map((result: { id: number }) => result.id)).toEqual([2]);
    const left = JSON.parse((await berth('jobs', 'dead', 'list', '--json')).out) as StoredDeadLetter[];
    expect(left.map((l) => l.jobId)).toEqual(['job-3']);
  });

  it('explains a wrong invocation with exit code 2', async () => {
    expect(await berth('jobs', 'dead', 'replay')).toMatchObject({
      code: 2,
      err: expect.stringContaining('Usage: berth jobs dead replay'),
    });
    expect(await berth('jobs', 'dead', 'replay', '1', '--all')).toMatchObject({ code: 2 });
    expect(await berth('jobs', 'nope')).toMatchObject({ code: 2 });
    expect(await berth('webhooks', 'nope')).toMatchObject({ code: 2 });
    expect(await berth('jobs', 'dead', 'list', '--bogus')).toMatchObject({ code: 2 });
    expect(await berth('--help')).toMatchObject({ code: 0, out: expect.stringContaining('berth jobs dead replay') });
  });

  it('runs as the berth bin', () => {
    const result = spawnSync(process.execPath, [join(__dirname, '..', 'bin', 'berth.js'), 'jobs', 'queues', '--json'], {
      env: { ...process.env, NATS_URL: server.url },
      cwd: '/',
      encoding: 'utf8',
      timeout: 30000,
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout).map((depth: QueueDepth) => [depth.queue, depth.deadLetters])).toEqual([
      ['billing-queue', 1],
    ]);
  });
});
