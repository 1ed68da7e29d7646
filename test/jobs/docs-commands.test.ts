import { waitFor } from '@berth/local-infra/testing';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { Process, Processor, type JobInfo } from '@berth/jobs';
import { captureLogs, startNats, toolsBinDir, type NatsFixture } from './support/infra';
import { createJobsApp } from './support/jobs-app';

const run = promisify(execFile);
const logs = captureLogs('warn');
let nats: NatsFixture;
let app: INestApplicationContext;
const received: { data: unknown; info: JobInfo }[] = [];

@Processor({ queueName: 'client-queue' })
class SendClientSummaryJob {
  @Process(SendClientSummaryJob.name)
  async handle(data: unknown, info: JobInfo): Promise<void> {
    received.push({ data, info });
  }
}

beforeAll(async () => {
  nats = await startNats(logs.logger);
  app = await createJobsApp({
    messaging: nats.messaging,
    logger: logs.logger,
    queues: ['client-queue'],
    providers: [SendClientSummaryJob],
  });
});
afterAll(async () => {
  await app?.close();
  await nats?.stop();
});

/** Runs the `nats` CLI as docs/jobs.md shows it, against this file's server. */
const natsCli = (...args: string[]) =>
  run(join(toolsBinDir, 'nats'), ['--server', nats.server.url, ...args], { timeout: 15000 });

describe('the nats CLI commands of docs/jobs.md', () => {
  it('nats pub queues a job by hand; nats consumer info shows the queue', async () => {
    await natsCli('pub', 'jobs.client-queue.SendClientSummaryJob', '{"workspaceId":"ws_1"}');
    await waitFor(() => received.length === 1, { what: 'the job', timeoutMs: 5000 });
    expect(received[0]).toMatchObject({
      data: { workspaceId: 'ws_1' },
      info: { name: 'SendClientSummaryJob', queue: 'client-queue', attempt: 1 },
    });
    const { stdout } = await natsCli('consumer', 'info', 'JOBS', 'jobs-client-queue');
    expect(stdout).toContain('jobs-client-queue');
    expect(stdout).toContain('jobs.client-queue.>');
  });
});
