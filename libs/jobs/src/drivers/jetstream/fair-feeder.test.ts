import { randomUUID } from 'node:crypto';
import { AckPolicy, type JetStreamClient, type MsgRequest } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { waitFor } from '@berth/local-infra/testing';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { encodeJobRecords, JOB_COUNT_HEADER, type JobRecord } from '../../job-record';
import {
  JOBS_STREAM_NAME,
  priorityConsumerName,
  priorityFilterSubject,
  queueConsumerName,
  queueFilterSubject,
} from '../../names';
import { startFairFeeder, movedByFairFeeder, type FairFeeder } from './fair-feeder';
import {
  FAIR_JOB_NAME_HEADER,
  FAIR_JOBS_STREAM_NAME,
  fairFeederLeaseKey,
  fairQueueFilter,
  fairSubject,
} from './fair-jobs-stream';
import { provisionJobInfrastructure } from './job-infrastructure';
import { encodeKey } from './kv-key-slots';

const logger = createLogger({ service: 'fair-feeder-test', level: 'silent' });
let server: NatsServerHandle;
let messaging: Messaging;
let leases: KV;

beforeAll(async () => {
  server = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  messaging = await connectMessaging({ servers: server.url, name: 'fair-feeder-test', logger });
  leases = (await provisionJobInfrastructure(messaging)).windows.kv;
}, 60000);

afterAll(async () => {
  await messaging?.close();
  await server?.stop();
});

/**
 * A queue with its consumer on `JOBS` (and its priority-1 band's, with `priority`), and `count` fair jobs over `keys`
 * keys, `perMessage` (100) to a message.
 */
async function fairQueue(
  count: number,
  keys: number,
  perMessage = 100,
  priority?: number,
): Promise<{ queue: string; ids: string[] }> {
  const queue = `fair-${randomUUID().slice(0, 8)}`;
  await messaging.jsm.consumers.add(JOBS_STREAM_NAME, {
    durable_name: queueConsumerName(queue),
    filter_subject: queueFilterSubject(queue),
    ack_policy: AckPolicy.Explicit,
  });
  if (priority)
    await messaging.jsm.consumers.add(JOBS_STREAM_NAME, {
      durable_name: priorityConsumerName(queue, priority),
      filter_subject: priorityFilterSubject(queue, priority),
      ack_policy: AckPolicy.Explicit,
    });
  const ids: string[] = [];
  for (let from = 0; from < count; from += perMessage) {
    const records: JobRecord[] = Array.from({ length: Math.min(perMessage, count - from) }, (_, n) => ({
      id: `${queue}-${from + n}`,
      data: null,
      retryLimit: 0,
      attemptsMade: 0,
      addedAt: new Date().toISOString(),
      fairKey: `k${(from + n) % keys}`,
      ...(priority ? { priority } : {}),
    }));
    ids.push(...records.map((record) => record.id));
    await publishFairJobs(queue, records);
  }
  return { queue, ids };
}

/** Stores `records` in `JOBS_FAIR` as one message of the queue's job `Job`, as a producer does. */
async function publishFairJobs(queue: string, records: JobRecord[]): Promise<void> {
  const h = headers();
  h.set(JOB_COUNT_HEADER, String(records.length));
  h.set(FAIR_JOB_NAME_HEADER, 'Job');
  await messaging.js.publish(fairSubject(queue, 'Job'), encodeJobRecords(records), { headers: h });
}

/** Reads and acks one fetch of the queue's `JOBS` messages (up to `maxMessages`), adding their job ids to `seen`. */
async function readJobs(queue: string, seen: string[], maxMessages = 100): Promise<void> {
  const consumer = await messaging.js.consumers.get(JOBS_STREAM_NAME, queueConsumerName(queue));
  const batch = await consumer.fetch({ max_messages: maxMessages, expires: 1000 });
  for await (const message of batch) {
    seen.push(...message.json<JobRecord[]>().map((record) => record.id));
    message.ack();
  }
}

/** Reads and acks the queue's `JOBS` messages until `expected` jobs came, then until none is left. */
async function drain(queue: string, expected: number): Promise<string[]> {
  const seen: string[] = [];
  const readSome = () => readJobs(queue, seen);
  await waitFor(
    async () => {
      await readSome();
      return seen.length >= expected && (await fairMessagesLeft(queue)) === 0;
    },
    { what: `${expected} jobs moved to JOBS`, timeoutMs: 60000, intervalMs: 1 },
  );
  // Every JOBS_FAIR message is gone, so nothing more can come: read what is left in JOBS.
  while ((await messaging.jsm.consumers.info(JOBS_STREAM_NAME, queueConsumerName(queue))).num_pending > 0)
    await readSome();
  return seen;
}

async function fairMessagesLeft(queue: string): Promise<number> {
  const info = await messaging.jsm.streams.info(FAIR_JOBS_STREAM_NAME, { subjects_filter: fairQueueFilter(queue) });
  return Object.values((info.state.subjects as Record<string, number> | undefined) ?? {}).reduce((a, b) => a + b, 0);
}

/** Counts the requests sent on `subject` by any connection (a subscription of the test's own). */
async function countRequests(subject: string): Promise<{ readonly count: number; stop(): void }> {
  let count = 0;
  const subscription = messaging.nc.subscribe(subject, {
    callback: () => {
      count += 1;
    },
  });
  await messaging.nc.flush();
  return {
    get count() {
      return count;
    },
    stop: () => subscription.unsubscribe(),
  };
}

function duplicates(ids: string[]): string[] {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].flatMap(([id, n]) => (n > 1 ? [id] : []));
}

describe('the fair feeder', () => {
  let feeders: FairFeeder[] = [];
  afterEach(async () => {
    await Promise.all(feeders.map((feeder) => feeder.stop()));
    feeders = [];
  });

  it('moves every job once, many keys to a JOBS message, in turns', async () => {
    const { queue, ids } = await fairQueue(1000, 50);
    feeders.push(startFairFeeder({ js: messaging.js, jsm: messaging.jsm, leases, queue, owner: `${queue}:a`, logger }));
    const seen = await drain(queue, ids.length);
    expect(duplicates(seen)).toEqual([]);
    expect(new Set(seen)).toEqual(new Set(ids));
    // Round-robin: the first 50 jobs moved are one of each key.
    const firstKeys = new Set(seen.slice(0, 50).map((id) => Number(id.split('-').pop()) % 50));
    expect(firstKeys.size).toBe(50);
  }, 90000);

  it('loses and repeats nothing when its holder dies between writing a round and publishing it', async () => {
    const { queue, ids } = await fairQueue(600, 30);
    // The dying feeder: once it wrote a round to its lease, every later call of it fails, as in a dead process.
    let dead = false;
    const fails = () => Promise.reject(new Error('the process is gone'));
    const deadLeases = new Proxy(leases, {
      get(target, property) {
        if (property === 'update')
          return async (key: string, value: string, revision: number) => {
            if (dead) return fails();
            const written = await target.update(key, value, revision);
            if (value.includes('"round"')) dead = true;
            return written;
          };
        if (dead && (property === 'get' || property === 'create')) return fails;
        const member = Reflect.get(target, property) as unknown;
        return typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(target) : member;
      },
    });
    const deadJs = new Proxy(messaging.js, {
      get(target, property) {
        if (property === 'publish')
          return (...args: Parameters<JetStreamClient['publish']>) => (dead ? fails() : target.publish(...args));
        const member = Reflect.get(target, property) as unknown;
        return typeof member === 'function' ? (member as (...a: unknown[]) => unknown).bind(target) : member;
      },
    });
    feeders.push(
      startFairFeeder({
        js: deadJs,
        jsm: messaging.jsm,
        leases: deadLeases,
        queue,
        owner: `${queue}:dying`,
        leaseMs: 1000,
        logger,
      }),
    );
    await waitFor(() => dead, { what: 'the first feeder to write a round', timeoutMs: 10000 });
    // Its round is named in the lease, and not in JOBS.
    const plan = (await leases.get(fairFeederLeaseKey(queue)))!.json<{
      round: { messages: { refs: [number, number][] }[] };
    }>();
    const [seq, index] = plan.round.messages[0].refs[0];
    expect(await movedByFairFeeder(leases, queue, seq, index)).toBe(true);
    expect((await messaging.jsm.consumers.info(JOBS_STREAM_NAME, queueConsumerName(queue))).num_pending).toBe(0);

    feeders.push(
      startFairFeeder({
        js: messaging.js,
        jsm: messaging.jsm,
        leases,
        queue,
        owner: `${queue}:next`,
        leaseMs: 1000,
        logger,
      }),
    );
    const seen = await drain(queue, ids.length);
    expect(duplicates(seen)).toEqual([]);
    expect(new Set(seen)).toEqual(new Set(ids));
  }, 90000);

  it('hands its marks on when it stops, so the next feeder moves only what is left', async () => {
    const { queue, ids } = await fairQueue(800, 40);
    const first = startFairFeeder({
      js: messaging.js,
      jsm: messaging.jsm,
      leases,
      queue,
      owner: `${queue}:first`,
      aheadJobs: 64,
      logger,
    });
    // Take some, leave the rest: with at most 64 jobs ahead, it stops moving until they are read.
    const seen: string[] = [];
    await waitFor(
      async () => {
        await readJobs(queue, seen, 10);
        return seen.length >= 100;
      },
      { what: 'some jobs moved', timeoutMs: 30000, intervalMs: 1 },
    );
    await first.stop();
    expect(await fairMessagesLeft(queue)).toBeGreaterThan(0);
    // Messages part of whose jobs moved: the lease names those jobs.
    const plan = (await leases.get(fairFeederLeaseKey(queue)))!.json<{
      owner: string;
      emitted: Record<string, string>;
    }>();
    expect(plan.owner).toBe('');
    expect(Object.keys(plan.emitted).length).toBeGreaterThan(0);
    feeders.push(
      startFairFeeder({ js: messaging.js, jsm: messaging.jsm, leases, queue, owner: `${queue}:second`, logger }),
    );
    seen.push(...(await drain(queue, ids.length - seen.length)));
    expect(duplicates(seen)).toEqual([]);
    expect(new Set(seen)).toEqual(new Set(ids));
  }, 90000);

  it('reads a job added to an idle queue at once, listening for it instead of looking every listMs', async () => {
    const { queue, ids } = await fairQueue(1, 1);
    // The feeder's connection, recording the subjects it subscribes to.
    const listened: string[] = [];
    const nc = new Proxy(messaging.nc, {
      get(target, property, receiver) {
        if (property !== 'subscribe') return Reflect.get(target, property, receiver) as unknown;
        return (subject: string, options?: object) => {
          listened.push(subject);
          return target.subscribe(subject, options);
        };
      },
    }) as NatsConnection;
    const getRequests = await countRequests(`$JS.API.STREAM.MSG.GET.${FAIR_JOBS_STREAM_NAME}`);
    // Without listening, a job added now would wait for the next look, up to a minute away.
    feeders.push(
      startFairFeeder({
        js: messaging.js,
        jsm: messaging.jsm,
        nc,
        leases,
        queue,
        owner: `${queue}:a`,
        listMs: 60_000,
        logger,
      }),
    );
    expect(await drain(queue, 1)).toEqual(ids);
    await waitFor(() => listened.includes(fairQueueFilter(queue)), { what: 'the idle feeder listening' });
    const looksWhenIdle = getRequests.count;
    const record: JobRecord = {
      id: `${queue}-late`,
      data: null,
      retryLimit: 0,
      attemptsMade: 0,
      addedAt: new Date().toISOString(),
      fairKey: 'k0',
    };
    const addedAt = performance.now();
    await publishFairJobs(queue, [record]);
    const seen: string[] = [];
    await waitFor(
      async () => {
        await readJobs(queue, seen);
        return seen.length > 0;
      },
      { what: 'the late job moved to JOBS', timeoutMs: 10_000, intervalMs: 1 },
    );
    expect(seen).toEqual([record.id]);
    expect(performance.now() - addedAt).toBeLessThan(2000);
    // Before it listened: the read that found the first job, eight that found none, one as it began to listen.
    expect(looksWhenIdle).toBeLessThanOrEqual(10);
    getRequests.stop();
  }, 90000);

  it('removes the messages it finished behind one whose key has to wait, and that one once it moved', async () => {
    // Job 0 is of key k0, alone in the first message; 99 messages of one job each of other keys follow.
    const { queue, ids } = await fairQueue(100, 100, 1);
    let stuck = true;
    feeders.push(
      startFairFeeder({
        js: messaging.js,
        jsm: messaging.jsm,
        leases,
        queue,
        owner: `${queue}:a`,
        saturatedKeys: async () => new Set(stuck ? [encodeKey('k0')] : []),
        listMs: 20,
        logger,
      }),
    );
    const seen: string[] = [];
    // The 99 others move and most of their messages go, one by one: the first, unfinished, holds a purge back.
    await waitFor(
      async () => {
        await readJobs(queue, seen);
        // At most 64 finished ones are held behind an unfinished one before they are deleted one by one.
        const left = await fairMessagesLeft(queue);
        return seen.length >= 99 && left <= 65;
      },
      { what: "the other keys' jobs moved and their messages removed", timeoutMs: 30000, intervalMs: 1 },
    );
    expect(seen).not.toContain(ids[0]);
    stuck = false;
    seen.push(...(await drain(queue, 1)));
    expect(duplicates(seen)).toEqual([]);
    expect(new Set(seen)).toEqual(new Set(ids));
  }, 90000);

  it("counts the jobs waiting in a priority band's consumer, so it moves no more than it lets wait there", async () => {
    const { queue } = await fairQueue(2000, 10, 100, 1);
    const band = priorityConsumerName(queue, 1);
    feeders.push(
      startFairFeeder({
        js: messaging.js,
        jsm: messaging.jsm,
        leases,
        queue,
        consumers: [queueConsumerName(queue), band],
        owner: `${queue}:a`,
        aheadJobs: 64,
        leaseMs: 1000,
        logger,
      }),
    );
    const pendingInBand = async () => (await messaging.jsm.consumers.info(JOBS_STREAM_NAME, band)).num_pending;
    await waitFor(pendingInBand, { what: 'fair jobs moved to the band' });
    // Nobody reads the band: after the feeder renewed its lease (so it turned again since), it still moved no more.
    const revision = (await leases.get(fairFeederLeaseKey(queue)))!.revision;
    await waitFor(async () => (await leases.get(fairFeederLeaseKey(queue)))!.revision > revision + 1, {
      what: 'two more writes of the lease',
    });
    const moved = await jobsStored(priorityFilterSubject(queue, 1));
    expect(moved).toBeGreaterThan(0);
    expect(moved).toBeLessThanOrEqual(64);
  }, 60000);
});

/** The jobs stored in `JOBS` on `filter`, read without consuming them. */
async function jobsStored(filter: string): Promise<number> {
  let jobs = 0;
  let seq = 0;
  for (;;) {
    const message = await messaging.jsm.streams.getMessage(JOBS_STREAM_NAME, {
      seq,
      next_by_subj: filter,
    } as unknown as MsgRequest);
    if (!message) return jobs;
    jobs += message.json<JobRecord[]>().length;
    seq = message.seq + 1;
  }
}
