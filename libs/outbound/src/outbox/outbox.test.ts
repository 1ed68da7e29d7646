import { ManualClock } from '@berth/contract/testing';
import type { Collection, Db, Document, UpdateFilter } from 'mongodb';
import { createLogger } from '@berth/logger';
import { createMetricsRegistry } from '@berth/metrics';
import type { LeaseDocument } from '@berth/store';
import { startTestMongo, type TestMongo } from '../test-support/test-mongo';
import {
  countPendingOutbox,
  createOutboxMetrics,
  createOutboxRelay,
  ensureOutboxIndex,
  insertWithOutbox,
  OUTBOX_INDEX_NAME,
  relayOutbox,
  updateWithOutbox,
  type OutboxCollection,
  type OutboxDocument,
  type OutboxEntry,
  type OutboxSend,
} from './index';

const logger = createLogger({ service: 'outbox-test', level: 'silent' });
let testMongo: TestMongo;
let db: Db;
let counter = 0;

beforeAll(async () => {
  testMongo = await startTestMongo({ maxPoolSize: 32 });
  db = testMongo.client.db(`outbox_test_${process.pid}`);
});
afterAll(() => testMongo?.stop());

interface Invoice extends Document {
  _id: string;
  status: string;
  total: number;
  _outbox?: OutboxEntry[];
}

async function invoices(): Promise<Collection<Invoice>> {
  counter += 1;
  const collection = db.collection<Invoice>(`invoices_${counter}`);
  await collection.insertOne({ _id: 'in_1', status: 'open', total: 500 });
  return collection;
}

interface SentCall {
  workspaceId: string;
  eventType: string;
  payload: unknown;
  idempotencyKey: string;
}

/** A stand-in for the JetStream sender: records every call and, like the stream, keeps one event per key. */
function recordingSend(fail: (call: SentCall) => boolean = () => false): {
  send: OutboxSend;
  calls: SentCall[];
  delivered: Map<string, SentCall>;
} {
  const calls: SentCall[] = [];
  const delivered = new Map<string, SentCall>();
  const send: OutboxSend = async (workspaceId, eventType, payload, { idempotencyKey }) => {
    const call = { workspaceId, eventType, payload, idempotencyKey };
    calls.push(call);
    if (fail(call)) throw new Error('stream unavailable');
    if (!delivered.has(idempotencyKey)) delivered.set(idempotencyKey, call);
  };
  return { send, calls, delivered };
}

const paid = { workspaceId: 'ws_1', eventType: 'invoice.paid', payload: { invoiceId: 'in_1', total: 500 } };
/** The relay's view of a business collection: the same collection, typed by its outbox only. */
const outboxOf = (collection: Collection<Invoice>): OutboxCollection =>
  db.collection<OutboxDocument>(collection.collectionName);
const asCollections = (...collections: Array<Collection<Invoice>>): OutboxCollection[] => collections.map(outboxOf);
const pending = (collection: Collection<Invoice>): Promise<number> => countPendingOutbox([outboxOf(collection)]);

describe('writing with the outbox', () => {
  it('stores the business change and its event in one update', async () => {
    const collection = await invoices();
    const { written, entries } = await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid],
    });
    expect(written).toBe(true);
    expect(await collection.findOne({ _id: 'in_1' })).toEqual({
      _id: 'in_1',
      status: 'paid',
      total: 500,
      _outbox: [
        {
          id: entries[0]!.id,
          workspaceId: 'ws_1',
          eventType: 'invoice.paid',
          payload: '{"invoiceId":"in_1","total":500}',
          createdAt: expect.any(Date),
        },
      ],
    });
  });

  it('stores neither when the update fails, nor when it matches nothing', async () => {
    const collection = await invoices();
    // $inc on a string: the server refuses the whole update, so neither the total nor the event may be stored.
    const refused = { $set: { total: 0 }, $inc: { status: 1 } } as unknown as UpdateFilter<Invoice>;
    await expect(
      updateWithOutbox({ collection, filter: { _id: 'in_1' }, update: refused, events: [paid] }),
    ).rejects.toThrow(/non-numeric/);
    expect(await collection.findOne({ _id: 'in_1' })).toEqual({ _id: 'in_1', status: 'open', total: 500 });
    expect(
      await updateWithOutbox({
        collection,
        filter: { _id: 'in_404' },
        update: { $set: { status: 'paid' } },
        events: [paid],
      }),
    ).toEqual({ written: false, entries: [] });
    expect(await pending(collection)).toBe(0);
  });

  it('refuses an event that could never be sent, storing no business change either', async () => {
    const collection = await invoices();
    await expect(
      updateWithOutbox({
        collection,
        filter: { _id: 'in_1' },
        update: { $set: { status: 'paid' } },
        events: [{ ...paid, eventType: 'invoice paid' }],
      }),
    ).rejects.toThrow(TypeError);
    expect((await collection.findOne({ _id: 'in_1' }))!.status).toBe('open');
  });

  it('inserts a new document with its events, or neither on a duplicate key', async () => {
    const collection = await invoices();
    const { entries } = await insertWithOutbox({
      collection,
      document: { _id: 'in_2', status: 'open', total: 9 },
      events: [{ ...paid, eventType: 'invoice.created' }],
    });
    expect((await collection.findOne({ _id: 'in_2' }))!._outbox).toEqual([
      expect.objectContaining({ id: entries[0]!.id, eventType: 'invoice.created' }),
    ]);
    await expect(
      insertWithOutbox({ collection, document: { _id: 'in_1', status: 'open', total: 1 }, events: [paid] }),
    ).rejects.toMatchObject({ code: 11000 });
    expect(await pending(collection)).toBe(1);
  });

  it('upserts a document with its events', async () => {
    const collection = await invoices();
    expect(
      (
        await updateWithOutbox({
          collection,
          filter: { _id: 'in_3' },
          update: { $set: { status: 'draft', total: 1 } },
          events: [paid],
          upsert: true,
        })
      ).written,
    ).toBe(true);
    expect((await collection.findOne({ _id: 'in_3' }))!._outbox).toHaveLength(1);
  });

  it('keeps payload keys with . and $ as they were, since the payload is stored as text', async () => {
    const collection = await invoices();
    const payload = { 'metadata.plan': 'pro', $note: 'dollar', nested: { 'a.b': [1, 2] } };
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [{ ...paid, payload }],
    });
    const { send, calls } = recordingSend();
    await relayOutbox({ collections: asCollections(collection), send, logger });
    expect(calls[0]!.payload).toEqual(payload);
  });
});

describe('relayOutbox', () => {
  it('sends a pending event after a crash between the write and the relay, with the database restarted too', async () => {
    const collection = await invoices();
    const { entries } = await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid],
    });
    await testMongo.ferret.kill();
    await testMongo.ferret.restart();
    const { send, calls } = recordingSend();
    expect(await relayOutbox({ collections: asCollections(collection), send, logger })).toEqual({
      sent: 1,
      failed: 0,
      more: false,
    });
    expect(calls).toEqual([
      { workspaceId: 'ws_1', eventType: 'invoice.paid', payload: paid.payload, idempotencyKey: entries[0]!.id },
    ]);
    expect(await collection.findOne({ _id: 'in_1' })).toEqual({ _id: 'in_1', status: 'paid', total: 500, _outbox: [] });
    expect(await relayOutbox({ collections: asCollections(collection), send, logger })).toEqual({
      sent: 0,
      failed: 0,
      more: false,
    });
    expect(calls).toHaveLength(1);
  });

  it('sends again under the same idempotency key when the relay dies after sending and before removing', async () => {
    const collection = await invoices();
    const { entries } = await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid],
    });
    const { send, calls, delivered } = recordingSend();
    const dying = Object.create(outboxOf(collection), {
      updateOne: { value: () => Promise.reject(new Error('process killed')) },
    }) as OutboxCollection;
    expect(await relayOutbox({ collections: [dying], send, logger })).toEqual({ sent: 0, failed: 0, more: false });
    expect(await pending(collection)).toBe(1);
    expect(await relayOutbox({ collections: asCollections(collection), send, logger })).toMatchObject({ sent: 1 });
    expect(calls.map((call) => call.idempotencyKey)).toEqual([entries[0]!.id, entries[0]!.id]);
    expect([...delivered.keys()]).toEqual([entries[0]!.id]);
    expect(await pending(collection)).toBe(0);
  });

  it('removes a sent entry by its id, even when its other fields changed after the relay read it', async () => {
    const collection = await invoices();
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid],
    });
    const { send: record, calls } = recordingSend();
    const send: OutboxSend = async (...args) => {
      await record(...args);
      await collection.updateOne({ _id: 'in_1' }, { $set: { '_outbox.0.workspaceId': 'ws_rewritten' } });
    };
    expect(await relayOutbox({ collections: asCollections(collection), send, logger })).toEqual({
      sent: 1,
      failed: 0,
      more: false,
    });
    expect(calls).toHaveLength(1);
    expect(await pending(collection)).toBe(0);
  });

  it('sends the entries of a document in order, a failed one holding back the later ones, other documents going on', async () => {
    const collection = await invoices();
    await collection.insertOne({ _id: 'in_2', status: 'open', total: 1 });
    const events = ['invoice.created', 'invoice.finalized', 'invoice.paid'].map((eventType) => ({
      ...paid,
      eventType,
    }));
    await updateWithOutbox({ collection, filter: { _id: 'in_1' }, update: { $set: { status: 'paid' } }, events });
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_2' },
      update: { $set: { status: 'paid' } },
      events: [{ ...paid, payload: { invoiceId: 'in_2' } }],
    });
    let failures = 1;
    const { send, calls } = recordingSend((call) => call.eventType === 'invoice.finalized' && failures-- > 0);
    expect(await relayOutbox({ collections: asCollections(collection), send, logger, concurrency: 1 })).toEqual({
      sent: 2,
      failed: 1,
      more: false,
    });
    expect((await collection.findOne({ _id: 'in_1' }))!._outbox!.map((entry) => entry.eventType)).toEqual([
      'invoice.finalized',
      'invoice.paid',
    ]);
    expect(await relayOutbox({ collections: asCollections(collection), send, logger })).toEqual({
      sent: 2,
      failed: 0,
      more: false,
    });
    const ofInvoice = (invoiceId: string) =>
      calls
        .filter((call) => (call.payload as { invoiceId: string }).invoiceId === invoiceId)
        .map((call) => call.eventType);
    expect(ofInvoice('in_1')).toEqual(['invoice.created', 'invoice.finalized', 'invoice.finalized', 'invoice.paid']);
    expect(ofInvoice('in_2')).toEqual(['invoice.paid']);
  });

  it('relays documents oldest entry first, in batches, reporting when more are pending', async () => {
    const collection = await invoices();
    for (const [id, day] of [
      ['c', 3],
      ['a', 1],
      ['b', 2],
    ] as const) {
      await insertWithOutbox({
        collection,
        document: { _id: id, status: 'open', total: 0 },
        events: [{ ...paid, payload: id }],
        clock: new ManualClock(Date.UTC(2030, 0, day)),
      });
    }
    const { send, calls } = recordingSend();
    expect(
      await relayOutbox({ collections: asCollections(collection), send, logger, batchSize: 2, concurrency: 1 }),
    ).toEqual({ sent: 2, failed: 0, more: true });
    expect(await relayOutbox({ collections: asCollections(collection), send, logger, batchSize: 2 })).toEqual({
      sent: 1,
      failed: 0,
      more: false,
    });
    expect(calls.map((call) => call.payload)).toEqual(['a', 'b', 'c']);
  });

  it('leaves a document to the relay that removed its entry first, after one duplicate at most', async () => {
    const collection = await invoices();
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid, paid, paid],
    });
    const snapshot = await outboxOf(collection).find({}).toArray();
    const fast = recordingSend();
    await relayOutbox({ collections: asCollections(collection), send: fast.send, logger });
    const late = recordingSend();
    const stale = Object.create(outboxOf(collection), {
      find: { value: () => ({ toArray: async () => snapshot }) },
    }) as OutboxCollection;
    expect(await relayOutbox({ collections: [stale], send: late.send, logger })).toEqual({
      sent: 1,
      failed: 0,
      more: false,
    });
    expect(fast.calls).toHaveLength(3);
    expect(late.calls.map((call) => call.idempotencyKey)).toEqual([fast.calls[0]!.idempotencyKey]);
  });

  it('with several relays at once, sends every entry at least once and leaves none pending', async () => {
    const collection = await invoices();
    const ids: string[] = [];
    for (let document = 0; document < 30; document += 1) {
      const events = Array.from({ length: 4 }, (_, index) => ({ ...paid, payload: { document, index } }));
      ids.push(
        ...(
          await insertWithOutbox({ collection, document: { _id: `doc_${document}`, status: 'open', total: 0 }, events })
        ).entries.map((entry) => entry.id),
      );
    }
    const { send, calls, delivered } = recordingSend();
    const drain = async (): Promise<void> => {
      for (;;) {
        const result = await relayOutbox({
          collections: asCollections(collection),
          send,
          logger,
          batchSize: 10,
          concurrency: 4,
        });
        if (result.sent === 0 && !result.more) return;
      }
    };
    await Promise.all([drain(), drain(), drain(), drain()]);
    expect(await pending(collection)).toBe(0);
    expect(new Set(delivered.keys())).toEqual(new Set(ids));
    expect(calls.length).toBeGreaterThanOrEqual(ids.length);
    for (const key of ids) {
      const ofKey = calls.filter((call) => call.idempotencyKey === key);
      expect(new Set(ofKey.map((call) => JSON.stringify(call.payload))).size).toBe(1);
    }
  });
});

describe('createOutboxRelay', () => {
  it('relays a write as soon as it is woken, and stop() waits for the pass in progress', async () => {
    const collection = await invoices();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached!: () => void;
    const sending = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const send: OutboxSend = async () => {
      reached();
      await gate;
    };
    const relay = createOutboxRelay({ collections: asCollections(collection), send, logger, pollIntervalMs: 60_000 });
    relay.start();
    relay.start();
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid],
    });
    relay.wake();
    await sending;
    let stopped = false;
    const stopping = relay.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await pending(collection)).toBe(0);
  });

  it('logs a failed pass and tries again at the next poll', async () => {
    const collection = await invoices();
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid],
    });
    let finds = 0;
    const relayView = outboxOf(collection);
    const flaky = Object.create(relayView, {
      find: {
        value: (...args: Parameters<OutboxCollection['find']>) =>
          ++finds === 1 ? { toArray: () => Promise.reject(new Error('connection reset')) } : relayView.find(...args),
      },
    }) as OutboxCollection;
    const errors: unknown[] = [];
    const observed = Object.assign(Object.create(logger), {
      error: (fields: unknown) => errors.push(fields),
    }) as typeof logger;
    let sent!: () => void;
    const delivered = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const relay = createOutboxRelay({
      collections: [flaky],
      send: async () => {
        sent();
      },
      logger: observed,
      pollIntervalMs: 5,
    });
    relay.start();
    await delivered;
    await relay.stop();
    expect(errors).toEqual([
      expect.objectContaining({ err: expect.objectContaining({ message: 'connection reset' }) }),
    ]);
  });
});

describe('createOutboxRelay with a lease', () => {
  it('lets one of several replicas relay, and another take over once it stops', async () => {
    const collection = await invoices();
    const leases = db.collection<LeaseDocument>(`leases_${counter}`);
    const sentBy: string[] = [];
    let sent!: () => void;
    let delivered = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const relays = ['replica-a', 'replica-b', 'replica-c'].map((owner) =>
      createOutboxRelay({
        collections: asCollections(collection),
        logger,
        pollIntervalMs: 20,
        lease: { leases, owner, leaseMs: 60_000 },
        send: async () => {
          sentBy.push(owner);
          sent();
        },
      }),
    );
    relays.forEach((relay) => relay.start());
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid, paid, paid],
    });
    await delivered;
    const holder = relays[['replica-a', 'replica-b', 'replica-c'].indexOf(sentBy[0]!)]!;
    await holder.stop();
    expect(new Set(sentBy).size).toBe(1);
    expect(sentBy).toHaveLength(3);

    delivered = new Promise<void>((resolve) => {
      sent = resolve;
    });
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'refunded' } },
      events: [{ ...paid, eventType: 'invoice.refunded' }],
    });
    await delivered;
    await Promise.all(relays.map((relay) => relay.stop()));
    expect(sentBy).toHaveLength(4);
    expect(sentBy[3]).not.toBe(sentBy[0]);
    expect(await pending(collection)).toBe(0);
    // One lease document, taken over in place, and released by whichever relay held it last when it stopped.
    expect(await leases.find().toArray()).toEqual([
      expect.objectContaining({ _id: 'outbox-relay', releasedAt: expect.any(Date) }),
    ]);
  });
});

describe('createOutboxMetrics', () => {
  it('reports pending documents and the age of the oldest pending entry per collection', async () => {
    const collection = await invoices();
    const now = new Date('2030-01-01T00:10:00Z');
    await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' },
      update: { $set: { status: 'paid' } },
      events: [paid],
      clock: new ManualClock('2030-01-01T00:00:00Z'),
    });
    await insertWithOutbox({
      collection,
      document: { _id: 'in_2', status: 'open', total: 1 },
      events: [paid],
      clock: new ManualClock('2030-01-01T00:05:00Z'),
    });
    const empty = await invoices();
    const registry = createMetricsRegistry();
    createOutboxMetrics(registry, {
      collections: asCollections(collection, empty),
      clock: new ManualClock(now),
      cacheMs: 0,
    });
    const text = await registry.metrics();
    expect(text).toContain(`webhook_outbox_pending{collection="${collection.collectionName}"} 2`);
    expect(text).toContain(`webhook_outbox_oldest_pending_age_seconds{collection="${collection.collectionName}"} 600`);
    expect(text).toContain(`webhook_outbox_pending{collection="${empty.collectionName}"} 0`);
    expect(text).toContain(`webhook_outbox_oldest_pending_age_seconds{collection="${empty.collectionName}"} 0`);
  });
});

describe('ensureOutboxIndex', () => {
  it('creates the pending-entry index, idempotently', async () => {
    const collection = (await invoices()) as unknown as OutboxCollection;
    await ensureOutboxIndex(collection);
    await ensureOutboxIndex(collection);
    expect((await collection.listIndexes().toArray()).map((index) => index.name)).toContain(OUTBOX_INDEX_NAME);
  });
});
