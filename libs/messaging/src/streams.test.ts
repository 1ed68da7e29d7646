import { Kvm } from '@nats-io/kv';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import {
  connectMessaging,
  deadLettersStream,
  DEFAULT_STREAM_MAX_BYTES,
  delayedJobsStream,
  ensureStream,
  jobsStream,
  webhooksStream,
  type Messaging,
} from './index';

const GIB = 1024 ** 3;
let server: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({
    servers: server.url,
    name: 'streams-test',
    logger: createLogger({ service: 'streams-test', level: 'silent' }),
  });
});
afterAll(async () => {
  await messaging.close();
  await server.stop();
});

describe('stream sizes', () => {
  it('reserve less than the smallest JetStream store Berth deploys (18 GiB per node in Kubernetes)', () => {
    const reserved = [webhooksStream(), jobsStream(), delayedJobsStream(), deadLettersStream()].reduce(
      (sum, spec) => sum + (spec.max_bytes ?? 0),
      0,
    );
    expect(reserved).toBe(
      DEFAULT_STREAM_MAX_BYTES.WEBHOOKS + DEFAULT_STREAM_MAX_BYTES.JOBS + DEFAULT_STREAM_MAX_BYTES.DEAD_LETTERS,
    );
    expect(reserved).toBeLessThanOrEqual(16 * GIB);
  });

  it('all fit on one server (max_file_store 20GB, as compose and the local tools run it), with room for the KV buckets', async () => {
    for (const spec of [webhooksStream(), jobsStream({ replicas: 1 }), delayedJobsStream(), deadLettersStream()]) {
      expect(await ensureStream(messaging.jsm, spec)).toBe('created');
    }
    // A bucket like the cron schedules or the deduplication ids (no reservation of its own).
    const kv = await new Kvm(messaging.js).create('streams_test_bucket', { history: 1 });
    await kv.put('key', 'value');
    expect((await kv.get('key'))?.string()).toBe('value');
    // A stream created by an older version (10 GiB) is brought down to the default in place.
    expect(await ensureStream(messaging.jsm, { ...webhooksStream(), max_bytes: 10 * GIB })).toBe('updated');
    expect(await ensureStream(messaging.jsm, webhooksStream())).toBe('updated');
  });
});
