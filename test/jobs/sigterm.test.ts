import { waitFor } from '@berth/local-infra/testing';
import { MongoClient, type Db } from 'mongodb';
import { startFerretDb, type FerretDbHandle, type ManagedProcess } from '@berth/local-infra';
import { createJobProducer, DELAYED_JOBS_STREAM_NAME, JOBS_STREAM_NAME, queueConsumerName } from '@berth/jobs';
import { RecordEffectJobA, type EffectDocument } from './fixtures/effect-jobs';
import { captureLogs, startNats, toolsBinDir, type NatsFixture } from './support/infra';
import { startTestWorker, type TestWorkerEnv } from './support/worker-process';

const logs = captureLogs('warn');
let nats: NatsFixture;
let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
const workers: ManagedProcess[] = [];

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNats(logs.logger), startFerretDb({ binDir: toolsBinDir })]);
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`sigterm_${process.pid}`);
});
afterAll(async () => {
  for (const worker of workers) await worker.stop(2000).catch(() => undefined);
  await mongo?.close();
  await Promise.all([nats?.stop(), ferret?.stop()]);
});

describe('SIGTERM during a 1-second job', () => {
  it('lets the job finish, exits 0, and leaves the jobs it had not started for the next worker', async () => {
    const env = (name: string): TestWorkerEnv => ({
      NATS_URL: nats.server.url,
      MONGO_URL: ferret.url,
      MONGO_DB: db.databaseName,
      WORKER_NAME: name,
      WORKER_QUEUES: 'effects-a',
      WORKER_CONCURRENCY: '1',
      JOB_DURATION_MS: '1000',
      RECORD_STARTS: 'true',
      WORKER_SHUTDOWN_GRACE_MS: '10000',
    });
    const first = await startTestWorker(env('first'));
    workers.push(first);
    const producer = createJobProducer({ messaging: nats.messaging, logger: logs.logger });
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push((await producer.add('effects-a', RecordEffectJobA.name, { n })).id);

    await waitFor(async () => (await db.collection('started').countDocuments()) === 1, {
      what: 'the first job to start',
      timeoutMs: 10000,
    });
    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    const exit = await first.exited;
    expect(exit).toEqual({ code: 0, signal: null });

    const effects = db.collection<EffectDocument>('effects');
    const done = await effects.find().toArray();
    expect(done.map((effect) => effect._id)).toEqual([ids[0]]);
    expect(done[0].at.getTime()).toBeLessThanOrEqual(Date.now());
    expect(Date.now() - signalledAt).toBeLessThan(5000);
    const consumer = await nats.messaging.jsm.consumers.info(JOBS_STREAM_NAME, queueConsumerName('effects-a'));
    expect(consumer.num_ack_pending).toBe(0);
    expect(consumer.num_pending).toBe(2);

    // Nothing was lost: the next worker runs the two that waited, each once.
    const second = await startTestWorker(env('second'));
    workers.push(second);
    await waitFor(async () => (await effects.countDocuments()) === 3, { what: 'the remaining jobs', timeoutMs: 15000 });
    expect((await effects.find().toArray()).map((effect) => effect._id).sort()).toEqual([...ids].sort());
    expect(await db.collection('duplicateAttempts').countDocuments()).toBe(0);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect((await nats.messaging.jsm.streams.info(JOBS_STREAM_NAME)).state.messages).toBe(0);
    expect((await nats.messaging.jsm.streams.info(DELAYED_JOBS_STREAM_NAME)).state.messages).toBe(0);
  }, 60000);
});
