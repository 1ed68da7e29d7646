import { waitFor } from '@berth/local-infra/testing';
import { provisionJobInfrastructure, type JobInfrastructure } from '@berth/jobs';
import { captureLogs, startNats, uniqueQueue, type NatsFixture } from '../support/infra';

type KeySlots = JobInfrastructure['keySlots'];

const logs = captureLogs('warn');
let nats: NatsFixture;
let first: KeySlots;
let second: KeySlots;

beforeAll(async () => {
  nats = await startNats(logs.logger);
  // Two processes' views of the bucket: each its own connection, group commit and reading of the server's clock.
  first = (await provisionJobInfrastructure(nats.messaging)).keySlots;
  second = (await provisionJobInfrastructure(await nats.connect('second-worker'))).keySlots;
});
afterAll(async () => {
  await nats?.stop();
});

describe('per-key slots, group committed', () => {
  it('stays exact when two processes take and free the slots of 50 keys at once, in few writes', async () => {
    const queue = uniqueQueue('slots-race');
    const held = new Map<string, number>();
    let max = 0;
    let granted = 0;
    const writesBefore = first.commits.stats.writes + second.commits.stats.writes;
    const attempt = async (slots: KeySlots, key: string, jobId: string): Promise<void> => {
      const limit = { key, limit: 2 };
      if (!(await slots.acquire(queue, limit, jobId, 30000))) return;
      granted += 1;
      held.set(key, (held.get(key) ?? 0) + 1);
      max = Math.max(max, held.get(key) ?? 0);
      await new Promise((resolve) => setImmediate(resolve));
      held.set(key, (held.get(key) ?? 0) - 1);
      await slots.release(queue, limit, jobId, 30000);
    };
    const runs: Promise<void>[] = [];
    for (let round = 0; round < 4; round++)
      for (let k = 0; k < 50; k++)
        for (let n = 0; n < 3; n++)
          runs.push(attempt((k + n) % 2 === 0 ? first : second, `ws_${k}`, `job-${round}-${k}-${n}`));
    await Promise.all(runs);
    const writes = first.commits.stats.writes + second.commits.stats.writes - writesBefore;
    process.stdout.write(`key-slots: ${runs.length} attempts, ${granted} granted, ${writes} writes, max ${max}\n`);
    expect(max).toBeLessThanOrEqual(2);
    // Every key reached its limit (how many of its 12 attempts found a slot free depends on timing).
    expect(granted).toBeGreaterThanOrEqual(100);
    // Each granted job took and freed a slot: two changes each, far fewer writes.
    expect(writes).toBeLessThan(granted);
    expect(await first.list(queue)).toEqual([]);
  });

  it("judges a lease by the server's clock: a worker whose wall clock is an hour ahead frees no live slot", async () => {
    const queue = uniqueQueue('slots-clock');
    const limit = { key: 'ws_clock', limit: 1 };
    // Each process read the server's time (the stream info's timestamp) when it opened the bucket.
    expect(first.commits.clock.calibrated && second.commits.clock.calibrated).toBe(true);
    expect(await first.acquire(queue, limit, 'holder', 30000)).toBe(true);
    const wall = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 60 * 60 * 1000);
    try {
      expect(await second.acquire(queue, limit, 'newcomer', 30000)).toBe(false);
    } finally {
      wall.mockRestore();
    }
  });

  it("frees the slot of a holder that stopped renewing once its lease ends by the server's clock", async () => {
    const queue = uniqueQueue('slots-lease');
    const limit = { key: 'ws_lease', limit: 1 };
    expect(await first.acquire(queue, limit, 'holder', 400)).toBe(true);
    expect(await second.acquire(queue, limit, 'newcomer', 400)).toBe(false);
    const refusedAt = performance.now();
    await waitFor(() => second.acquire(queue, limit, 'newcomer', 400), {
      what: 'the lapsed slot to be free',
      timeoutMs: 5000,
    });
    // Not before the lease ran out (400 ms from the holder's write; the refusal came a round trip after it).
    expect(performance.now() - refusedAt).toBeGreaterThanOrEqual(300);
  });
});

describe('the sweep', () => {
  it('hands the slot of a holder that never released to the job parked behind it', async () => {
    const queue = uniqueQueue('slots-sweep');
    const limit = { key: 'ws_sweep', limit: 1 };
    expect(await first.acquire(queue, limit, 'lost-holder', 400)).toBe(true);
    const record = { id: 'parked-job', data: {}, retryLimit: 3, attemptsMade: 0, addedAt: new Date().toISOString() };
    await second.park(queue, 'SweptJob', limit, record, 'park:parked-job', 400);
    const jobsSubject = `jobs.${queue}.SweptJob`;
    const inJobs = async (): Promise<boolean> =>
      (await nats.messaging.jsm.streams.getMessage('JOBS', { last_by_subj: jobsSubject })) !== null;
    expect(await inJobs()).toBe(false);
    // Nobody releases the holder's slot: only its lease, judged by the server's clock, then a sweep frees it.
    await waitFor(
      async () => {
        await second.sweep(queue, 400, () => limit);
        return inJobs();
      },
      { what: 'the sweep to put the parked job back on JOBS', timeoutMs: 5000 },
    );
    expect(await first.list(queue)).toEqual([
      { queue, key: 'ws_sweep', limit: 1, running: ['parked-job'], waiting: 0 },
    ]);
  });
});
