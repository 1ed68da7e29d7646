/**
 * The retention cron on an inbox of 100,000 rows: it deletes exactly the processed events past the limit (30 days,
 * by `processedAt`) and never an unprocessed one, set aside or not. The test prints the query plans of the
 * retention's two queries. On MongoDB (set BERTH_TEST_MONGO_URL to run against one) it asserts an index scan of
 * `processedAt_receivedAt`; on the embedded store that PostgreSQL's plan scans an index, never the table.
 */
import { ManualClock } from '@berth/contract/testing';
import { MongoClient, type Db, type Document } from 'mongodb';
import { startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import {
  deleteExpiredWebhookEvents,
  ensureInboxIndexes,
  expiredEventsFilter,
  inboxCollections,
  RETENTION_INDEX,
  WEBHOOK_EVENTS_COLLECTION,
  type Inbox,
  type InboxEventDocument,
} from '@berth/inbox';
import { binDir, inboxRow } from './support';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2030-06-01T03:30:00.000Z');
const CUTOFF = NOW - 30 * DAY;
const ROWS = 100_000;
const externalMongo = process.env.BERTH_TEST_MONGO_URL;

let ferret: FerretDbHandle | undefined;
let client: MongoClient;
let db: Db;
let inbox: Inbox;

beforeAll(async () => {
  if (!externalMongo) ferret = await startFerretDb({ binDir });
  client = await MongoClient.connect(externalMongo ?? ferret!.url);
  db = client.db(`inbox_crons_retention_${process.pid}`);
  inbox = inboxCollections(db);
  await ensureInboxIndexes({ inbox });
}, 60_000);
afterAll(async () => {
  if (externalMongo) await db?.dropDatabase();
  await client?.close();
  await ferret?.stop();
});

type Kind = 'expired' | 'kept' | 'unprocessed' | 'set-aside';

/**
 * Row n of the inbox. The kinds are interleaved, so the collection's natural order is not the order of `processedAt`:
 * 4 in 10 processed more than 30 days ago (spread over the 30 days before the cutoff, the last one 1 ms before it),
 * 4 in 10 processed since (the first one exactly at the cutoff, which is kept), 1 in 10 unprocessed and 1 in 10 set
 * aside, all received long ago.
 */
function rowAt(n: number): { kind: Kind; document: InboxEventDocument } {
  const slot = n % 10;
  const kind: Kind = slot < 4 ? 'expired' : slot < 8 ? 'kept' : slot === 8 ? 'unprocessed' : 'set-aside';
  const rank = Math.floor(n / 10) * 4 + (slot % 4); // 0 … 39,999 within the expired and the kept rows
  const processedAt =
    kind === 'expired'
      ? new Date(CUTOFF - 1 - (39_999 - rank) * 64_800) // from ~30 days before the cutoff to 1 ms before it
      : kind === 'kept'
        ? new Date(CUTOFF + rank * 64_800) // from the cutoff itself to ~30 days after it (now)
        : null;
  const receivedAt = new Date((processedAt?.getTime() ?? NOW - 90 * DAY) - 1000);
  const eventId = `evt_${String(n).padStart(6, '0')}`;
  return {
    kind,
    document: inboxRow('stripe', eventId, 'invoice.paid', {
      receivedAt,
      payload: `{"id":"${eventId}","object":"event","data":{"object":{"customer":"cus_${n % 977}"}}}`,
      subject: 'webhooks.stripe.invoice.paid',
      attempts: kind === 'set-aside' ? 33 : 1,
      lastError: kind === 'set-aside' ? 'Error: Stripe 503' : null,
      lastAttemptAt: receivedAt,
      processedAt,
      abandonedAt: kind === 'set-aside' ? new Date(NOW - 60 * DAY) : null,
      setAsideCount: kind === 'set-aside' ? 1 : 0,
    }),
  };
}

/** Every `stage` and `indexName` in a MongoDB plan tree. */
function planStages(
  plan: unknown,
  found: { stages: string[]; indexes: string[] } = { stages: [], indexes: [] },
): { stages: string[]; indexes: string[] } {
  if (Array.isArray(plan)) plan.forEach((item) => planStages(item, found));
  else if (plan && typeof plan === 'object') {
    for (const [key, value] of Object.entries(plan)) {
      if (key === 'stage' && typeof value === 'string') found.stages.push(value);
      else if (key === 'indexName' && typeof value === 'string') found.indexes.push(value);
      else if (key !== 'command') planStages(value, found);
    }
  }
  return found;
}

describe('deleteExpiredWebhookEvents on 100,000 rows', () => {
  it('deletes exactly the processed events past the limit, and shows the query plans (an IXSCAN of processedAt_receivedAt on MongoDB)', async () => {
    const expected = {
      expired: new Set<string>(),
      kept: new Set<string>(),
      unprocessed: new Set<string>(),
      'set-aside': new Set<string>(),
    };
    const started = Date.now();
    for (let from = 0; from < ROWS; from += 5000) {
      const batch = Array.from({ length: Math.min(5000, ROWS - from) }, (_, index) => rowAt(from + index));
      for (const { kind, document } of batch) expected[kind].add(document._id);
      await inbox.events.insertMany(
        batch.map((row) => row.document),
        { ordered: false },
      );
    }
    const insertedMs = Date.now() - started;
    expect([expected.expired.size, expected.kept.size, expected.unprocessed.size, expected['set-aside'].size]).toEqual([
      40_000, 40_000, 10_000, 10_000,
    ]);

    // The query plans of the retention's two queries: the pass over the expired events' processedAt, and a window's delete.
    const cutoff = new Date(CUTOFF);
    const passPlan = await inbox.events
      .find(expiredEventsFilter(cutoff), { projection: { _id: 0, processedAt: 1 }, hint: RETENTION_INDEX })
      .sort({ processedAt: 1 })
      .explain('queryPlanner');
    const onFerretDb =
      (passPlan as Document).serverInfo?.ferretdbVersion !== undefined ||
      (passPlan as Document).queryPlanner?.Plan !== undefined;
    const windowFilter = { processedAt: { $gte: new Date(CUTOFF - DAY), $lt: cutoff } };
    // FerretDB explains no delete: the window's filter is explained as the find it runs, with the same hint.
    const deletePlan = onFerretDb
      ? await inbox.events.find(windowFilter, { hint: RETENTION_INDEX }).explain('queryPlanner')
      : await db.command({
          explain: {
            delete: WEBHOOK_EVENTS_COLLECTION,
            deletes: [{ q: windowFilter, limit: 0, hint: RETENTION_INDEX }],
          },
          verbosity: 'queryPlanner',
        });
    const shown = (plan: Document) =>
      JSON.stringify(
        { queryPlanner: plan.queryPlanner, filterPushdown: plan.filterPushdown, sortPushdown: plan.sortPushdown },
        null,
        2,
      );
    process.stdout.write(
      `\nRetention query plans (${onFerretDb ? 'FerretDB' : 'MongoDB'}):\n--- pass: find(${JSON.stringify(expiredEventsFilter(cutoff))}).sort({processedAt: 1}), hint ${RETENTION_INDEX}\n${shown(passPlan)}\n--- window delete: deleteMany({processedAt: {$gte, $lt}}), hint ${RETENTION_INDEX}\n${shown(deletePlan)}\n`,
    );
    if (onFerretDb) {
      for (const plan of [passPlan, deletePlan]) {
        const tree = JSON.stringify(plan.queryPlanner);
        expect(tree).toMatch(/"Node Type":"(Index Scan|Index Only Scan|Bitmap Index Scan)"/);
        expect(tree).not.toContain('"Node Type":"Seq Scan"');
      }
    } else {
      for (const plan of [passPlan, deletePlan]) {
        const { stages, indexes } = planStages(plan.queryPlanner);
        expect(stages).toContain('IXSCAN');
        expect(stages).not.toContain('COLLSCAN');
        expect(indexes).toContain(RETENTION_INDEX);
      }
    }
    expect((await inbox.events.listIndexes().toArray()).find((index) => index.name === RETENTION_INDEX)?.key).toEqual({
      processedAt: 1,
      receivedAt: 1,
    });

    const deleting = Date.now();
    const result = await deleteExpiredWebhookEvents({ inbox, clock: new ManualClock(NOW), retentionDays: 30 });
    const deletedMs = Date.now() - deleting;
    expect(result).toMatchObject({ deleted: 40_000, batches: 2, cutoff });

    const left = await inbox.events.find({}, { projection: { _id: 1 } }).toArray();
    const leftIds = new Set(left.map((document) => document._id));
    expect(left).toHaveLength(60_000);
    for (const kind of ['kept', 'unprocessed', 'set-aside'] as const)
      expect([...expected[kind]].filter((id) => !leftIds.has(id))).toEqual([]);
    expect([...expected.expired].filter((id) => leftIds.has(id))).toEqual([]);
    expect(leftIds.has(rowAt(4).document._id)).toBe(true); // processed exactly at the cutoff: kept

    expect(await deleteExpiredWebhookEvents({ inbox, clock: new ManualClock(NOW), retentionDays: 30 })).toMatchObject({
      deleted: 0,
      batches: 0,
    });
    process.stdout.write(
      `Inserted ${ROWS} rows in ${insertedMs} ms; the retention deleted ${result.deleted} in ${result.batches} window(s) in ${deletedMs} ms.\n`,
    );
  }, 240_000);
});
