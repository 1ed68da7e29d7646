import { Writable } from 'node:stream';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger, LogContextStore, type BerthLogger } from '@berth/logger';
import { waitFor } from '@berth/local-infra/testing';
import { JOBS_STREAM_NAME, queueConsumerName } from '@berth/jobs';
import { connectMessaging, type Messaging } from '@berth/messaging';

/** The folder holding nats-server and ferretdb. */
export const toolsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);

/** A logger whose JSON lines a test can read, with the log context jobs use. */
export interface CapturedLogs {
  logger: BerthLogger;
  logContext: LogContextStore;
  lines: Record<string, unknown>[];
}

/** A pino logger writing parsed lines into an array (level `debug` unless given). */
export function captureLogs(level = 'debug'): CapturedLogs {
  const lines: Record<string, unknown>[] = [];
  const logContext = new LogContextStore();
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ service: 'jobs-test', level, context: logContext, destination }), logContext, lines };
}

/** A nats-server of its own for one test file, and a connection to it. */
export interface NatsFixture {
  server: NatsServerHandle;
  messaging: Messaging;
  /** Another connection (a second "process"), closed with the fixture. */
  connect(name: string): Promise<Messaging>;
  stop(): Promise<void>;
}

/** Starts nats-server with JetStream on a free port and connects. */
export async function startNats(logger: BerthLogger): Promise<NatsFixture> {
  const server = await startNatsServer({ binDir: toolsBinDir });
  const extra: Messaging[] = [];
  const messaging = await connectMessaging({ servers: server.url, name: 'jobs-test', logger });
  return {
    server,
    messaging,
    async connect(name) {
      const connection = await connectMessaging({ servers: server.url, name, logger });
      extra.push(connection);
      return connection;
    },
    async stop() {
      for (const connection of extra) await connection.close().catch(() => undefined);
      await messaging.close().catch(() => undefined);
      await server.stop();
    },
  };
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

let counter = 0;
/** A queue name unique in this process (`<prefix>-<pid>-<n>`). */
export function uniqueQueue(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

/**
 * Resolves once the queue's consumer on `JOBS` has nothing pending and nothing unacknowledged: every message was
 * acked or terminated, so no job of the queue can run again. What a test waits for before asserting that nothing
 * more ran (instead of sleeping a fixed time).
 */
export async function waitForQueueSettled(messaging: Messaging, queue: string, timeoutMs = 10000): Promise<void> {
  await waitFor(
    async () => {
      const info = await messaging.jsm.consumers.info(JOBS_STREAM_NAME, queueConsumerName(queue));
      return info.num_pending === 0 && info.num_ack_pending === 0;
    },
    { what: `queue ${queue} to settle every message`, timeoutMs },
  );
}
