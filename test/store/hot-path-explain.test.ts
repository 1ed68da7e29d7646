import { systemClock } from '@berth/contract';
/**
 * Every query the hot paths send uses an index: on the embedded store (FerretDB 2 on PostgreSQL with DocumentDB) the
 * plan PostgreSQL reports scans an index, never the table; with BERTH_TEST_MONGO_URL the same test asserts an index
 * scan (IXSCAN, or IDHACK, the `_id` point lookup of MongoDB 7) and no COLLSCAN on MongoDB.
 *
 * The inbox's queries are not listed here by hand: the test runs the inbox's hot path (a new event, a redelivery of a
 * processed one, a failed attempt and its retry, a renewed lease, a batch message) with the driver's command
 * monitoring on, and explains every filter those commands sent, guards beside `_id` included.
 */
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import { defaultToolsBinDir, startFerretDb, type FerretDbHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { exponentialBackoff } from '@berth/messaging';
import {
  ensureInboxIndexes,
  extendEventLease,
  claimEvent,
  inboxCollections,
  processInboxEvent,
  processWebhookMessage,
  recordReceivedEvent,
  type Inbox,
} from '@berth/inbox';
import { fakeWebhookBatchMessage, fakeWebhookMessage } from '@berth/inbox/testing';
import { outboundCollections } from '@berth/outbound';
import { expectIndexed, expectQueriesIndexed, monitorQueries, planOf, queriesOf } from './support/query-plans';

const mongoUrl = process.env.BERTH_TEST_MONGO_URL;
const onMongo = mongoUrl !== undefined;
const logger = createLogger({ service: 'hot-path-explain', level: 'silent' });
const retryPolicy = exponentialBackoff({ maxAttempts: 3, baseDelayMs: 1000 });
const base = { owner: 'replica-1', leaseMs: 60_000, logger, retryPolicy, clock: systemClock };

let ferret: FerretDbHandle | undefined;
let client: MongoClient;
let db: Db;
let inbox: Inbox;
let commands: CommandStartedEvent[] = [];

beforeAll(async () => {
  if (!mongoUrl) ferret = await startFerretDb({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  client = await MongoClient.connect(mongoUrl ?? ferret!.url, { monitorCommands: true });
  db = client.db(`hot_path_explain_${process.pid}_${Date.now().toString(36)}`);
  inbox = inboxCollections(db);
  await ensureInboxIndexes({ inbox });
  // Rows enough that a planner without an index would rather scan them.
  await inbox.events.insertMany(
    Array.from({ length: 300 }, (_, index) => ({
      _id: `stripe:evt_seed_${index}`,
      provider: 'stripe',
      eventId: `evt_seed_${index}`,
      type: 'invoice.paid',
      receivedAt: new Date(),
      payload: '{}',
      attempts: 1,
      lastError: null,
      lastAttemptAt: null,
      processedAt: new Date(),
      abandonedAt: null,
      leaseOwner: null,
      leaseUntil: null,
    })),
  );
  commands = monitorQueries(client, db);
});

afterAll(async () => {
  if (mongoUrl) await db?.dropDatabase();
  await client?.close();
  await ferret?.stop();
});

describe('the hot paths query through an index', () => {
  it('every query of the inbox hot path (claim, renew, processed, failure, batch, a row recorded before its claim) uses an index', async () => {
    commands.length = 0;
    const message = fakeWebhookMessage({
      provider: 'stripe',
      eventId: 'evt_hot_1',
      type: 'invoice.paid',
      body: { id: 'evt_hot_1' },
    });
    expect(await processInboxEvent({ ...base, inbox, message, handler: async () => undefined })).toBe('processed');
    expect(await processInboxEvent({ ...base, inbox, message, handler: async () => undefined })).toBe(
      'already_processed',
    );
    const failing = fakeWebhookMessage({
      provider: 'stripe',
      eventId: 'evt_hot_2',
      type: 'invoice.paid',
      body: { id: 'evt_hot_2' },
    });
    await expect(
      processInboxEvent({
        ...base,
        inbox,
        message: failing,
        handler: async () => {
          throw new Error('Stripe 503');
        },
      }),
    ).rejects.toThrow('Stripe 503');
    expect(
      await processInboxEvent({
        ...base,
        inbox,
        message: { ...failing, deliveryCount: 2 },
        handler: async () => undefined,
      }),
    ).toBe('processed');
    await recordReceivedEvent({
      inbox,
      event: { provider: 'clerk', eventId: 'msg_hot_3', type: 'user.updated', receivedAt: new Date(), payload: '{}' },
    });
    const claim = await claimEvent({
      inbox,
      key: 'clerk:msg_hot_3',
      owner: 'replica-1',
      leaseMs: 60_000,
      clock: systemClock,
    });
    if (claim.status !== 'claimed') throw new Error(`expected a claim, got ${claim.status}`);
    expect(await extendEventLease({ inbox, lease: claim.lease, leaseMs: 60_000, clock: systemClock })).toBe(true);
    const batch = fakeWebhookBatchMessage({
      provider: 'stripe',
      type: 'invoice.paid',
      events: ['evt_hot_4', 'evt_hot_5', 'evt_seed_7'].map((eventId) => ({ eventId, body: { id: eventId } })),
    });
    expect(await processWebhookMessage({ ...base, inbox, message: batch, handler: async () => undefined })).toEqual([
      'processed',
      'processed',
      'already_processed',
    ]);

    const recorded = { provider: 'clerk', eventId: 'msg_hot_6', type: 'user.updated' };
    await recordReceivedEvent({ inbox, event: { ...recorded, receivedAt: new Date(), payload: '{}' } });
    expect(
      await processInboxEvent({
        ...base,
        inbox,
        message: fakeWebhookMessage({ ...recorded, body: {} }),
        handler: async () => undefined,
      }),
    ).toBe('processed');

    const queries = commands.flatMap(queriesOf);
    expect(new Set(queries.map((query) => query.command))).toEqual(new Set(['findAndModify', 'find', 'update']));
    await expectQueriesIndexed(db, onMongo, queries);
  });

  it('the delivery log and endpoint lookups of the outbound hot path use an index', async () => {
    const collections = outboundCollections(db);
    await collections.events.insertMany(
      Array.from({ length: 200 }, (_, index) => ({ _id: `evt_out_${index}`, createdAt: new Date() }) as never),
    );
    await collections.endpoints.insertMany(
      Array.from({ length: 200 }, (_, index) => ({ _id: `ep_${index}`, workspaceId: 'ws' }) as never),
    );
    // fan-out-event.ts reads an event back by _id after a duplicate insert; endpoint-health.ts reads and writes an endpoint by _id.
    expectIndexed(
      onMongo,
      'outbound event by _id',
      await planOf(db, onMongo, collections.events.collectionName, { _id: 'evt_out_7' }),
    );
    expectIndexed(
      onMongo,
      'endpoint by _id',
      await planOf(db, onMongo, collections.endpoints.collectionName, { _id: 'ep_7' }),
    );
  });
});
