import { Writable } from 'node:stream';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { listCancellations, provisionJobInfrastructure, type CancellationRecord } from '@berth/jobs';
import { runCli } from '../../run-cli';

const logger = createLogger({ service: 'cli-flow-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'cli-flow-test', logger });
  await provisionJobInfrastructure(messaging);
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

async function berth(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (append: (text: string) => void) => new Writable({ write(chunk, _encoding, done) { append(chunk.toString()); done(); } });
  const code = await runCli(argv, { config: { natsUrl: server.url }, stdout: sink((text) => (out += text)), stderr: sink((text) => (err += text)) });
  return { code, out, err };
}

describe('berth jobs cancel / cancelled', () => {
  it('stores a cancellation the workers watch, and lists it', async () => {
    const cancelled = await berth('jobs', 'cancel', 'client-queue', 'job-42', '--reason', 'customer left');
    expect(cancelled.code).toBe(0);
    expect(cancelled.out).toMatch(/^QUEUE\s+JOB\s+CANCELLED AT\s+REASON$/m);
    expect(cancelled.out).toMatch(/client-queue\s+job-42\s+\S+\s+customer left/);
    expect(await listCancellations(messaging, 'client-queue')).toEqual([expect.objectContaining({ queue: 'client-queue', jobId: 'job-42', reason: 'customer left' })]);

    await berth('jobs', 'cancel', 'billing-queue', 'job-43');
    const json = JSON.parse((await berth('jobs', 'cancelled', '--json')).out) as CancellationRecord[];
    expect(json.map((r) => [r.queue, r.jobId])).toEqual([['client-queue', 'job-42'], ['billing-queue', 'job-43']]);
    expect((await berth('jobs', 'cancelled', '--queue', 'billing-queue')).out).toMatch(/billing-queue\s+job-43/);
  });

  it('refuses a wrong invocation', async () => {
    const wrong = await berth('jobs', 'cancel', 'client-queue');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toMatch(/give the queue and the job id/);
  });
});
