import { ManualClock } from '@berth/contract/testing';
import { createLogger } from '@berth/logger';
import {
  CronDefinitionError,
  LastTickStore,
  LEADER_KEY,
  listCrons,
  readCronSchedules,
  registerCronSchedules,
  type CronBuckets,
} from './index';
import { captureLogger, startTestNats, type TestNats } from './test-support/nats';

const silent = createLogger({ service: 'registry-test', level: 'silent' });
let nats: TestNats;

beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(async () => {
  await nats.close();
});

async function stored(
  buckets: CronBuckets,
): Promise<Record<string, { pattern: string; timeZone: string; owner: string; since: string }>> {
  const map = await readCronSchedules(buckets.schedules);
  return Object.fromEntries(
    [...map].map(([name, { schedule }]) => [
      name,
      { pattern: schedule.pattern, timeZone: schedule.timeZone, owner: schedule.owner, since: schedule.since },
    ]),
  );
}

describe('schedule registry', () => {
  it('adds, keeps, updates and removes an owner’s schedules at each start', async () => {
    const buckets = await nats.freshBuckets();
    const clock = new ManualClock('2025-01-01T10:00:00Z');
    const { logger, lines } = captureLogger();
    const register = (definitions: Parameters<typeof registerCronSchedules>[0]['definitions']) =>
      registerCronSchedules({ buckets, owner: 'worker', definitions, logger, clock });

    expect(
      await register([
        { name: 'SendWeeklySummariesCronJob', pattern: '0 8 * * 1' },
        { name: 'NightlyReportCronJob', pattern: '30 2 * * *', timeZone: 'Europe/Berlin' },
      ]),
    ).toEqual({
      added: ['SendWeeklySummariesCronJob', 'NightlyReportCronJob'],
      updated: [],
      unchanged: [],
      removed: [],
    });
    expect(lines.map((line) => line.msg)).toEqual([
      'Cron SendWeeklySummariesCronJob scheduled: 0 8 * * 1 (UTC).',
      'Cron NightlyReportCronJob scheduled: 30 2 * * * (Europe/Berlin).',
    ]);
    expect(await stored(buckets)).toEqual({
      SendWeeklySummariesCronJob: {
        pattern: '0 8 * * 1',
        timeZone: 'UTC',
        owner: 'worker',
        since: '2025-01-01T10:00:00.000Z',
      },
      NightlyReportCronJob: {
        pattern: '30 2 * * *',
        timeZone: 'Europe/Berlin',
        owner: 'worker',
        since: '2025-01-01T10:00:00.000Z',
      },
    });
    const revisionBefore = (await buckets.schedules.get('SendWeeklySummariesCronJob'))!.revision;

    // The next deploy with the same classes writes nothing.
    clock.advance(60_000);
    expect(
      await register([
        { name: 'SendWeeklySummariesCronJob', pattern: '0 8 * * 1' },
        { name: 'NightlyReportCronJob', pattern: '30 2 * * *', timeZone: 'Europe/Berlin' },
      ]),
    ).toMatchObject({ added: [], updated: [], unchanged: ['SendWeeklySummariesCronJob', 'NightlyReportCronJob'] });
    expect((await buckets.schedules.get('SendWeeklySummariesCronJob'))!.revision).toBe(revisionBefore);

    // A changed pattern restarts the schedule from now; a deleted class is unscheduled. Its last tick is left to
    // the scheduler (the owner's NATS user may not write that bucket).
    await new LastTickStore(buckets.lastTicks, 'scheduler-1', clock).record(
      'NightlyReportCronJob',
      new Date('2025-01-01T01:30:00Z'),
    );
    clock.advance(60_000);
    lines.length = 0;
    expect(await register([{ name: 'SendWeeklySummariesCronJob', pattern: '0 9 * * 1' }])).toEqual({
      added: [],
      updated: ['SendWeeklySummariesCronJob'],
      unchanged: [],
      removed: ['NightlyReportCronJob'],
    });
    expect(await stored(buckets)).toEqual({
      SendWeeklySummariesCronJob: {
        pattern: '0 9 * * 1',
        timeZone: 'UTC',
        owner: 'worker',
        since: '2025-01-01T10:02:00.000Z',
      },
    });
    expect(await buckets.lastTicks.get('NightlyReportCronJob')).toMatchObject({ operation: 'PUT' });
    expect(lines.map((line) => line.msg)).toEqual([
      'Cron SendWeeklySummariesCronJob scheduled: 0 9 * * 1 (UTC).',
      'Cron NightlyReportCronJob unscheduled: worker no longer defines it.',
    ]);
  });

  it('removes only the schedules of the registering owner', async () => {
    const buckets = await nats.freshBuckets();
    await registerCronSchedules({
      buckets,
      owner: 'billing',
      definitions: [{ name: 'BillingCronJob', pattern: '0 * * * *' }],
      logger: silent,
    });
    await registerCronSchedules({
      buckets,
      owner: 'scheduler',
      definitions: [{ name: 'RecoveryCronJob', pattern: '*/10 * * * *' }],
      logger: silent,
    });
    expect(await registerCronSchedules({ buckets, owner: 'billing', definitions: [], logger: silent })).toMatchObject({
      removed: ['BillingCronJob'],
    });
    expect(Object.keys(await stored(buckets))).toEqual(['RecoveryCronJob']);
  });

  it('replicas of one service registering together write each schedule once', async () => {
    const buckets = await nats.freshBuckets();
    const definitions = [{ name: 'RetentionCronJob', pattern: '30 3 * * *' }];
    const results = await Promise.all(
      [1, 2, 3].map(() => registerCronSchedules({ buckets, owner: 'scheduler', definitions, logger: silent })),
    );
    expect(results.flatMap((result) => result.added)).toEqual(['RetentionCronJob']);
    expect(results.flatMap((result) => result.unchanged)).toEqual(['RetentionCronJob', 'RetentionCronJob']);
  });

  it('refuses invalid definitions before writing anything', async () => {
    const buckets = await nats.freshBuckets();
    const attempt = registerCronSchedules({
      buckets,
      owner: 'worker',
      logger: silent,
      definitions: [
        { name: 'GoodCronJob', pattern: '0 8 * * 1' },
        { name: 'Bad.Name', pattern: '0 8 * * 1' },
        { name: 'BadPattern', pattern: '0 8 * *' },
        { name: 'BadZone', pattern: '0 8 * * 1', timeZone: 'Berlin' },
        { name: 'GoodCronJob', pattern: '0 9 * * 1' },
      ],
    });
    await expect(attempt).rejects.toThrow(CronDefinitionError);
    await expect(attempt).rejects.toMatchObject({
      problems: [
        expect.stringMatching(/Bad\.Name/),
        expect.stringMatching(/BadPattern: .*expected 5 fields/),
        expect.stringMatching(/BadZone: .*unknown time zone/),
        'GoodCronJob is defined twice',
      ],
    });
    expect(await stored(buckets)).toEqual({});
  });

  it('opens the buckets itself from a messaging connection', async () => {
    const result = await registerCronSchedules({
      messaging: nats.messaging,
      owner: 'worker',
      definitions: [{ name: 'DefaultBucketsCronJob', pattern: '0 8 * * 1' }],
      logger: silent,
    });
    expect(result.added).toEqual(['DefaultBucketsCronJob']);
    const rows = await listCrons({ messaging: nats.messaging });
    expect(rows.map((row) => row.name)).toContain('DefaultBucketsCronJob');
  });
});

describe('last ticks', () => {
  it('never move backwards, even when a deposed leader records late', async () => {
    const buckets = await nats.freshBuckets();
    const leader = new LastTickStore(buckets.lastTicks, 'new-leader');
    const deposed = new LastTickStore(buckets.lastTicks, 'old-leader');
    expect(await deposed.get('A')).toBeUndefined();
    await leader.record('A', new Date('2025-01-01T10:00:05Z'));
    await deposed.record('A', new Date('2025-01-01T10:00:03Z'));
    expect(await new LastTickStore(buckets.lastTicks, 'reader').get('A')).toEqual(new Date('2025-01-01T10:00:05Z'));
    await deposed.record('A', new Date('2025-01-01T10:00:06Z')); // newer: written after a re-read
    await leader.record('A', new Date('2025-01-01T10:00:07Z')); // its cached revision is stale: re-reads and writes
    expect(await new LastTickStore(buckets.lastTicks, 'reader').get('A')).toEqual(new Date('2025-01-01T10:00:07Z'));
  });
});

describe('listCrons', () => {
  it('gives each schedule with its last and next tick and the current leader', async () => {
    const buckets = await nats.freshBuckets();
    const clock = new ManualClock('2025-10-25T12:00:00Z');
    await registerCronSchedules({
      buckets,
      owner: 'worker',
      clock,
      logger: silent,
      definitions: [
        { name: 'NightlyReportCronJob', pattern: '30 2 * * *', timeZone: 'Europe/Berlin' },
        { name: 'EveryTenMinutesCronJob', pattern: '*/10 * * * *' },
      ],
    });
    await new LastTickStore(buckets.lastTicks, 'scheduler-1', clock).record(
      'EveryTenMinutesCronJob',
      new Date('2025-10-25T11:50:00Z'),
    );
    expect(await listCrons({ buckets, clock })).toEqual([
      {
        name: 'EveryTenMinutesCronJob',
        pattern: '*/10 * * * *',
        timeZone: 'UTC',
        queue: 'cron-queue',
        owner: 'worker',
        lastTick: new Date('2025-10-25T11:50:00Z'),
        nextTick: new Date('2025-10-25T12:10:00Z'),
        leader: null,
      },
      {
        name: 'NightlyReportCronJob',
        pattern: '30 2 * * *',
        timeZone: 'Europe/Berlin',
        queue: 'cron-queue',
        owner: 'worker',
        lastTick: null,
        nextTick: new Date('2025-10-26T00:30:00Z'),
        leader: null,
      },
    ]);
    await buckets.lease.put(
      LEADER_KEY,
      JSON.stringify({ holder: 'scheduler-1', acquiredAt: '', renewedAt: '', ttlMs: 10000 }),
    );
    expect((await listCrons({ buckets, clock })).map((row) => row.leader)).toEqual(['scheduler-1', 'scheduler-1']);
  });
});
