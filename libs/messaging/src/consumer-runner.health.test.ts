import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { waitFor } from '@berth/local-infra/testing';
import { createLogger } from '@berth/logger';
import {
  connectMessaging,
  ensureConsumer,
  ensureStream,
  exponentialBackoff,
  startConsumer,
  type Messaging,
} from './index';

const logger = createLogger({ service: 'runner-health-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'runner-health-test', logger });
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

/** The runner has no health event: its health is read until it changes. */
const until = (condition: () => boolean, what: string): Promise<boolean> =>
  waitFor(condition, { what, timeoutMs: 15000, intervalMs: 100 });

describe('consumer runner health', () => {
  it('is healthy while pulling, unhealthy once its consumer is gone, healthy again when it is back, and not after stop', async () => {
    const stream = `HEALTH_${process.pid}`;
    const spec = { stream, durable: 'worker', filterSubjects: [`health.${process.pid}.>`], ackWaitMs: 5000 };
    await ensureStream(messaging.jsm, { name: stream, subjects: [`health.${process.pid}.>`] });
    await ensureConsumer(messaging.jsm, spec);
    const runner = await startConsumer({
      js: messaging.js,
      stream,
      consumer: 'worker',
      concurrency: 2,
      ackWaitMs: 5000,
      pullExpiresMs: 1000,
      logger,
      retryPolicy: exponentialBackoff({ maxAttempts: 3, baseDelayMs: 100 }),
      handler: async () => undefined,
    });
    expect(runner.healthy).toBe(true);
    expect(runner.problem).toBeUndefined();

    await messaging.jsm.consumers.delete(stream, 'worker');
    await until(() => !runner.healthy, 'the runner unhealthy once its consumer is gone');
    expect(runner.problem).toMatch(/pulls in a row failed/);

    await ensureConsumer(messaging.jsm, spec);
    await until(() => runner.healthy, 'the runner healthy again');

    await runner.stop(1000);
    expect(runner.healthy).toBe(false);
    expect(runner.problem).toBe('stopped');
  });
});
