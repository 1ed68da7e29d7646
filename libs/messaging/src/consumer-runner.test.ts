import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import {
  connectMessaging,
  ensureConsumer,
  ensureStream,
  exponentialBackoff,
  publishMessage,
  startConsumer,
  UnrecoverableError,
  type Messaging,
  type ReceivedMessage,
} from './index';

const logger = createLogger({ service: 'messaging-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;
let counter = 0;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'messaging-test', logger });
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

/** A fresh stream and durable per test. */
async function freshConsumer(): Promise<{ stream: string; subject: string; durable: string }> {
  counter += 1;
  const stream = `T${counter}_${process.pid}`;
  const subject = `t${counter}.${process.pid}`;
  expect(await ensureStream(messaging.jsm, { name: stream, subjects: [`${subject}.>`] })).toBe('created');
  expect(await ensureStream(messaging.jsm, { name: stream, subjects: [`${subject}.>`] })).toBe('unchanged');
  await ensureConsumer(messaging.jsm, { stream, durable: 'worker', filterSubjects: [`${subject}.>`], ackWaitMs: 5000 });
  expect(
    await ensureConsumer(messaging.jsm, {
      stream,
      durable: 'worker',
      filterSubjects: [`${subject}.>`],
      ackWaitMs: 5000,
    }),
  ).toBe('unchanged');
  return { stream, subject, durable: 'worker' };
}

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Acks are applied by the server asynchronously: poll the consumer's state until it shows them, with a deadline. */
async function waitForAckPending(stream: string, durable: string, expected: number) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const info = await messaging.jsm.consumers.info(stream, durable);
    if (info.num_ack_pending === expected || Date.now() > deadline) {
      expect(info.num_ack_pending).toBe(expected);
      return info;
    }
    await messaging.nc.flush();
  }
}

describe('consumer runner', () => {
  it('drops a duplicate Nats-Msg-Id and hands every message to the handler once', async () => {
    const { stream, subject, durable } = await freshConsumer();
    const first = await publishMessage(messaging.js, { subject: `${subject}.a`, data: '{"n":1}', msgId: 'dup-1' });
    const second = await publishMessage(messaging.js, { subject: `${subject}.a`, data: '{"n":1}', msgId: 'dup-1' });
    expect(first.duplicate).toBe(false);
    expect(second).toMatchObject({ duplicate: true, seq: first.seq });
    await publishMessage(messaging.js, { subject: `${subject}.b`, data: '{"n":2}', msgId: 'dup-2' });
    const seen: number[] = [];
    const done = deferred();
    const runner = await startConsumer({
      js: messaging.js,
      stream,
      consumer: durable,
      concurrency: 4,
      ackWaitMs: 5000,
      logger,
      retryPolicy: exponentialBackoff({ maxAttempts: 3, baseDelayMs: 50 }),
      handler: async (message) => {
        seen.push(message.json<{ n: number }>().n);
        if (seen.length === 2) done.resolve();
      },
    });
    await done.promise;
    await runner.stop();
    expect(seen.sort()).toEqual([1, 2]);
    await waitForAckPending(stream, durable, 0);
  });

  it('retries with the backoff delay, then gives up after the last attempt', async () => {
    const { stream, subject, durable } = await freshConsumer();
    await publishMessage(messaging.js, { subject: `${subject}.fail`, data: '{}', msgId: 'f-1' });
    const attempts: number[] = [];
    const gaveUp = deferred<{ reason: string; attempt: number }>();
    const runner = await startConsumer({
      js: messaging.js,
      stream,
      consumer: durable,
      concurrency: 1,
      ackWaitMs: 5000,
      logger,
      retryPolicy: exponentialBackoff({ maxAttempts: 3, baseDelayMs: 200 }),
      handler: async () => {
        attempts.push(Date.now());
        throw new Error('provider down');
      },
      onGiveUp: async (message, _error, reason) => gaveUp.resolve({ reason, attempt: message.deliveryCount }),
    });
    expect(await gaveUp.promise).toEqual({ reason: 'exhausted', attempt: 3 });
    await runner.stop();
    expect(attempts).toHaveLength(3);
    expect(attempts[1] - attempts[0]).toBeGreaterThanOrEqual(180);
    expect(attempts[2] - attempts[1]).toBeGreaterThanOrEqual(380);
  });

  it('gives up at once on UnrecoverableError', async () => {
    const { stream, subject, durable } = await freshConsumer();
    await publishMessage(messaging.js, { subject: `${subject}.bad`, data: '{}', msgId: 'u-1' });
    let calls = 0;
    const gaveUp = deferred<string>();
    const runner = await startConsumer({
      js: messaging.js,
      stream,
      consumer: durable,
      concurrency: 1,
      ackWaitMs: 5000,
      logger,
      retryPolicy: exponentialBackoff({ maxAttempts: 5, baseDelayMs: 10 }),
      handler: async () => {
        calls += 1;
        throw new UnrecoverableError('invalid address');
      },
      onGiveUp: async (_message, _error, reason) => gaveUp.resolve(reason),
    });
    expect(await gaveUp.promise).toBe('unrecoverable');
    await runner.stop();
    expect(calls).toBe(1);
  });

  it('lets a running handler finish on stop and keeps its lease alive meanwhile', async () => {
    const { stream, subject, durable } = await freshConsumer();
    await ensureConsumer(messaging.jsm, { stream, durable, filterSubjects: [`${subject}.>`], ackWaitMs: 1000 });
    await publishMessage(messaging.js, { subject: `${subject}.slow`, data: '{}', msgId: 's-1' });
    const started = deferred<ReceivedMessage>();
    // The handler runs until a heartbeat (`+WPI` on the message's ack subject) is sent more than two ack waits
    // after it started: the lease is kept only if the runner keeps sending them.
    const heartbeats = messaging.nc.subscribe(`$JS.ACK.${stream}.${durable}.>`);
    const longPastAckWait = (async () => {
      const since = Date.now();
      for await (const beat of heartbeats) if (beat.string() === '+WPI' && Date.now() - since > 2500) return;
    })();
    let finished = false;
    let deliveries = 0;
    const runner = await startConsumer({
      js: messaging.js,
      stream,
      consumer: durable,
      concurrency: 2,
      ackWaitMs: 1000,
      logger,
      retryPolicy: exponentialBackoff({ maxAttempts: 3, baseDelayMs: 10 }),
      handler: async (message) => {
        deliveries += 1;
        started.resolve(message);
        await longPastAckWait;
        finished = true;
      },
    });
    await started.promise;
    await runner.stop(10000);
    heartbeats.unsubscribe();
    expect(finished).toBe(true);
    expect(deliveries).toBe(1);
    const info = await waitForAckPending(stream, durable, 0);
    expect(info.num_redelivered).toBe(0);
  });
});
