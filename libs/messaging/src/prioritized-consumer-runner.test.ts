import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { waitFor } from '@berth/local-infra/testing';
import { createLogger } from '@berth/logger';
import {
  connectMessaging,
  ensureConsumer,
  ensureStream,
  exponentialBackoff,
  publishMessage,
  startPrioritizedConsumer,
  type Messaging,
} from './index';

const logger = createLogger({ service: 'prioritized-runner-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'prioritized-runner-test', logger });
  await ensureStream(messaging.jsm, { name: 'BANDS', subjects: ['bands.>'] });
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

const policy = exponentialBackoff({ maxAttempts: 3, baseDelayMs: 10 });

/** Two consumers of `BANDS`, `<name>-a` (urgent) and `<name>-b`, on `bands.<name>.a` and `bands.<name>.b`. */
async function bands(name: string): Promise<string[]> {
  const consumers: string[] = [];
  for (const band of ['a', 'b']) {
    await ensureConsumer(messaging.jsm, {
      stream: 'BANDS',
      durable: `${name}-${band}`,
      filterSubjects: [`bands.${name}.${band}`],
      ackWaitMs: 5000,
    });
    consumers.push(`${name}-${band}`);
  }
  return consumers;
}

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('prioritized consumer runner', () => {
  it("takes a later consumer's messages only once the earlier one is empty, and holds only its free slots", async () => {
    const consumers = await bands('order');
    // Stored least urgent first: stream order is the reverse of the consumers' order.
    for (let n = 0; n < 6; n++) await publishMessage(messaging.js, { subject: 'bands.order.b', data: `b${n}` });
    for (let n = 0; n < 6; n++) await publishMessage(messaging.js, { subject: 'bands.order.a', data: `a${n}` });
    const started: string[] = [];
    const twoStarted = signal();
    const allDone = signal();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const runner = startPrioritizedConsumer({
      js: messaging.js,
      nc: messaging.nc,
      stream: 'BANDS',
      consumers,
      concurrency: 2,
      ackWaitMs: 5000,
      logger,
      retryPolicy: policy,
      handler: async (message) => {
        started.push(message.text());
        if (started.length === 2) twoStarted.resolve();
        if (started.length === 12) allDone.resolve();
        await gate;
      },
    });
    await twoStarted.promise;
    await messaging.nc.flush();
    const [a, b] = await Promise.all(consumers.map((name) => messaging.jsm.consumers.info('BANDS', name)));
    expect(a.num_ack_pending).toBe(2);
    expect(a.num_pending).toBe(4);
    expect(b.num_ack_pending).toBe(0);
    expect(b.num_pending).toBe(6);
    release();
    await allDone.promise;
    expect(started).toEqual([...[0, 1, 2, 3, 4, 5].map((n) => `a${n}`), ...[0, 1, 2, 3, 4, 5].map((n) => `b${n}`)]);
    await runner.stop();
  });

  it('waits on every consumer at once when all are empty, and runs what comes to any of them', async () => {
    const consumers = await bands('idle');
    const came = signal();
    const texts: string[] = [];
    const runner = startPrioritizedConsumer({
      js: messaging.js,
      nc: messaging.nc,
      stream: 'BANDS',
      consumers,
      concurrency: 2,
      ackWaitMs: 5000,
      pullExpiresMs: 1000,
      logger,
      retryPolicy: policy,
      handler: async (message) => {
        texts.push(message.text());
        if (texts.length === 2) came.resolve();
      },
    });
    // Published after the runner found both consumers empty: it is waiting on them.
    await messaging.nc.flush();
    await publishMessage(messaging.js, { subject: 'bands.idle.b', data: 'late-b' });
    await publishMessage(messaging.js, { subject: 'bands.idle.a', data: 'late-a' });
    await came.promise;
    expect(texts.sort()).toEqual(['late-a', 'late-b']);
    expect(runner.healthy).toBe(true);
    await runner.stop();
    // Acks are sent without waiting for the server's answer: both messages are acked once it processed them, and
    // none was redelivered (the wait on the other consumer was ended without losing a message).
    const state = async (): Promise<number[][]> =>
      (await Promise.all(consumers.map((name) => messaging.jsm.consumers.info('BANDS', name)))).map((info) => [
        info.num_pending,
        info.num_ack_pending,
        info.num_redelivered,
      ]);
    await waitFor(async () => (await state()).every((counts) => counts.every((count) => count === 0)), {
      what: 'both messages acked',
      timeoutMs: 5000,
    });
  });
});
