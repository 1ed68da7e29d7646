import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import {
  connectMessaging,
  ensureConsumer,
  ensureStream,
  exponentialBackoff,
  publishMessage,
  startConsumer,
  type Messaging,
} from './index';

const logger = createLogger({ service: 'runner-pulls-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'runner-pulls-test', logger });
  await ensureStream(messaging.jsm, { name: 'PULLS', subjects: ['pulls.>'] });
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

const policy = exponentialBackoff({ maxAttempts: 3, baseDelayMs: 10 });

/** A promise and the function that resolves it, for a handler to say it ran. */
function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * After the handlers started: one round trip on the runner's connection, so any pull it sent before is on the
 * server when the consumer's info is read.
 */
const settled = (): Promise<void> => messaging.nc.flush();

describe('consumer runner pulls', () => {
  it('holds no more messages than it runs: the others stay on the server for other replicas', async () => {
    await ensureConsumer(messaging.jsm, {
      stream: 'PULLS',
      durable: 'slow',
      filterSubjects: ['pulls.slow'],
      ackWaitMs: 5000,
    });
    for (let n = 0; n < 10; n++) await publishMessage(messaging.js, { subject: 'pulls.slow', data: String(n) });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const twoStarted = signal();
    const runner = await startConsumer({
      js: messaging.js,
      stream: 'PULLS',
      consumer: 'slow',
      concurrency: 2,
      ackWaitMs: 5000,
      logger,
      retryPolicy: policy,
      handler: async () => {
        if (++started === 2) twoStarted.resolve();
        await gate;
      },
    });
    await twoStarted.promise;
    await settled();
    const info = await messaging.jsm.consumers.info('PULLS', 'slow');
    expect(started).toBe(2);
    expect(info.num_ack_pending).toBe(2);
    expect(info.num_pending).toBe(8);
    release();
    await runner.stop();
  });

  it('counts the weight of messages that carry several units of work', async () => {
    await ensureConsumer(messaging.jsm, {
      stream: 'PULLS',
      durable: 'heavy',
      filterSubjects: ['pulls.heavy'],
      ackWaitMs: 5000,
    });
    for (let n = 0; n < 10; n++) await publishMessage(messaging.js, { subject: 'pulls.heavy', data: '5' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const twoStarted = signal();
    const runner = await startConsumer({
      js: messaging.js,
      stream: 'PULLS',
      consumer: 'heavy',
      concurrency: 8,
      ackWaitMs: 5000,
      logger,
      retryPolicy: policy,
      weightOf: (message) => Number(message.text()),
      handler: async () => {
        if (++started === 2) twoStarted.resolve();
        await gate;
      },
    });
    await twoStarted.promise;
    await settled();
    // Weight 5 each against a concurrency of 8: two messages in hand (10 units), not eight (40).
    expect(started).toBe(2);
    expect((await messaging.jsm.consumers.info('PULLS', 'heavy')).num_pending).toBe(8);
    release();
    await runner.stop();
  });

  it('logs and retries with the attempt given by attemptOf', async () => {
    await ensureConsumer(messaging.jsm, {
      stream: 'PULLS',
      durable: 'offset',
      filterSubjects: ['pulls.offset'],
      ackWaitMs: 5000,
    });
    await publishMessage(messaging.js, { subject: 'pulls.offset', data: '{}' });
    const reasons: string[] = [];
    const gaveUp = signal();
    const runner = await startConsumer({
      js: messaging.js,
      stream: 'PULLS',
      consumer: 'offset',
      concurrency: 1,
      ackWaitMs: 5000,
      logger,
      retryPolicy: policy,
      attemptOf: (message) => message.deliveryCount + 2,
      handler: async () => {
        throw new Error('down');
      },
      onGiveUp: async (_message, _error, reason) => {
        reasons.push(reason);
        gaveUp.resolve();
      },
    });
    await gaveUp.promise;
    await settled();
    // Attempt 3 of 3 on the first delivery: given up at once.
    expect(reasons).toEqual(['exhausted']);
    await runner.stop();
  });
});
