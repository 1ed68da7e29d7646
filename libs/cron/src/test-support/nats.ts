import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { createLogger, type BerthLogger } from '@berth/logger';
import { KvWatchInclude, type KV } from '@nats-io/kv';
import { openCronBuckets, type CronBuckets } from '../buckets';

/** A nats-server for one test file, with a connection. */
export interface TestNats {
  server: NatsServerHandle;
  messaging: Messaging;
  /** Cron buckets under fresh names, so tests do not see each other's entries. */
  freshBuckets(): Promise<CronBuckets>;
  close(): Promise<void>;
}

let counter = 0;

/** Starts nats-server (JetStream) on a free port and connects. */
export async function startTestNats(): Promise<TestNats> {
  const server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  const messaging = await connectMessaging({
    servers: server.url,
    name: 'cron-test',
    logger: createLogger({ service: 'cron-test', level: 'silent' }),
  });
  return {
    server,
    messaging,
    freshBuckets: () => {
      counter += 1;
      const suffix = `t${counter}`;
      return openCronBuckets(messaging.js, {
        names: {
          schedules: `schedules_${suffix}`,
          lastTicks: `last_${suffix}`,
          lease: `lease_${suffix}`,
          runLocks: `locks_${suffix}`,
        },
      });
    },
    async close() {
      await messaging.close();
      await server.stop();
    },
  };
}

/** A logger whose lines (parsed JSON) tests can read. */
export function captureLogger(): { logger: BerthLogger; lines: Array<Record<string, unknown> & { msg: string }> } {
  const lines: Array<Record<string, unknown> & { msg: string }> = [];
  const logger = createLogger({
    service: 'cron-test',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

/**
 * Resolves once `key` of `kv` has been written `count` times from now on (the server's own record of each
 * create, renewal or delete), or rejects after `timeoutMs`.
 */
export async function kvUpdates(kv: KV, key: string, count: number, timeoutMs = 10_000): Promise<void> {
  const watch = await kv.watch({ key, include: KvWatchInclude.UpdatesOnly });
  const timer = setTimeout(() => watch.stop(), timeoutMs);
  let seen = 0;
  for await (const entry of watch) {
    if (entry.key === key) seen += 1;
    if (seen >= count) break;
  }
  clearTimeout(timer);
  watch.stop();
  if (seen < count) throw new Error(`Saw ${seen} of ${count} writes of ${key} in ${timeoutMs} ms`);
}
