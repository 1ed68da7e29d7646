import { waitFor } from '@berth/local-infra/testing';
import { MongoClient, type Db } from 'mongodb';
import { startFerretDb, type FerretDbHandle, type ManagedProcess } from '@berth/local-infra';
import { createJobProducer, JOBS_STREAM_NAME, listDeadLetters } from '@berth/jobs';
import { EFFECT_JOB_OF_QUEUE, EFFECT_QUEUES, type EffectDocument } from './fixtures/effect-jobs';
import { captureLogs, startNats, toolsBinDir, type NatsFixture } from './support/infra';
import { startTestWorker, type TestWorkerEnv } from './support/worker-process';

const JOBS = 10000;
const logs = captureLogs('warn');
let nats: NatsFixture;
let ferret: FerretDbHandle;
let mongo: MongoClient;
let db: Db;
const workers: ManagedProcess[] = [];

beforeAll(async () => {
  [nats, ferret] = await Promise.all([startNats(logs.logger), startFerretDb({ binDir: toolsBinDir })]);
  mongo = await MongoClient.connect(ferret.url);
  db = mongo.db(`kill_worker_${process.pid}`);
});
afterAll(async () => {
  for (const worker of workers) await worker.stop(2000).catch(() => undefined);
  await mongo?.close();
  await Promise.all([nats?.stop(), ferret?.stop()]);
});

describe('a worker killed with SIGKILL in the middle of 10,000 jobs', () => {
  it('loses no job and applies no effect twice', async () => {
    const env = (name: string): TestWorkerEnv => ({
      NATS_URL: nats.server.url,
      MONGO_URL: ferret.url,
      MONGO_DB: db.databaseName,
      WORKER_NAME: name,
      WORKER_QUEUES: EFFECT_QUEUES.join(','),
      WORKER_CONCURRENCY: '8',
      WORKER_ACK_WAIT_MS: '3000',
    });
    const [doomed, survivor] = await Promise.all([startTestWorker(env('doomed')), startTestWorker(env('survivor'))]);
    workers.push(doomed, survivor);

    const producer = createJobProducer({ messaging: nats.messaging, logger: logs.logger });
    const jobIds = new Set<string>();
    for (let start = 0; start < JOBS; start += 1000) {
      const added = await Promise.all(
        Array.from({ length: 1000 }, (_, offset) => {
          const n = start + offset;
          const queue = EFFECT_QUEUES[n % EFFECT_QUEUES.length];
          return producer.add(queue, EFFECT_JOB_OF_QUEUE[queue].name, { n });
        }),
      );
      added.forEach((job) => jobIds.add(job.id));
    }
    expect(jobIds.size).toBe(JOBS);

    const effects = db.collection<EffectDocument>('effects');
    await waitFor(async () => (await effects.countDocuments()) >= JOBS * 0.3, {
      what: '30% of the effects',
      timeoutMs: 60000,
    });
    doomed.child.kill('SIGKILL');
    const killed = await doomed.exited;
    expect(killed.signal).toBe('SIGKILL');
    const atKill = await effects.countDocuments();

    await waitFor(async () => (await effects.countDocuments()) >= JOBS, { what: 'every effect', timeoutMs: 90000 });
    const all = await effects.find({}, { projection: { _id: 1, n: 1, worker: 1 } }).toArray();
    expect(all).toHaveLength(JOBS);
    expect(new Set(all.map((effect) => effect._id))).toEqual(jobIds);
    expect(new Set(all.map((effect) => effect.n)).size).toBe(JOBS);
    const byWorker = {
      doomed: all.filter((e) => e.worker === 'doomed').length,
      survivor: all.filter((e) => e.worker === 'survivor').length,
    };
    expect(byWorker.doomed).toBeGreaterThan(0);
    expect(byWorker.survivor).toBeGreaterThan(0);

    // Jobs the killed worker held were run again by the survivor: the unique key absorbed those runs.
    const duplicates = await db.collection('duplicateAttempts').countDocuments();
    process.stdout.write(
      `kill-worker: effects at kill ${atKill}, by worker ${JSON.stringify(byWorker)}, duplicate attempts absorbed ${duplicates}\n`,
    );

    await waitFor(async () => (await nats.messaging.jsm.streams.info(JOBS_STREAM_NAME)).state.messages === 0, {
      what: 'the JOBS stream to be empty',
      timeoutMs: 10000,
    });
    expect(await listDeadLetters(nats.messaging)).toEqual([]);

    await survivor.stop(10000);
    expect((await survivor.exited).code).toBe(0);
  }, 180000);
});
