import type { Db } from 'mongodb';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { eventIdFor, OUTBOUND_EVENTS_STREAM } from '../names';
import { createOutboundSender } from '../send/create-sender';
import { ensureOutboundStreams } from '../streams';
import { startTestMongo, type TestMongo } from '../test-support/test-mongo';
import { relayOutbox, updateWithOutbox, type OutboxCollection, type OutboxDocument, type OutboxSend } from './index';

const logger = createLogger({ service: 'outbox-send-test', level: 'silent' });
const binDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
let nats: NatsServerHandle;
let testMongo: TestMongo;
let messaging: Messaging;
let db: Db;

beforeAll(async () => {
  [nats, testMongo] = await Promise.all([startNatsServer({ binDir }), startTestMongo()]);
  db = testMongo.client.db(`outbox_send_test_${process.pid}`);
  messaging = await connectMessaging({ servers: nats.url, name: 'outbox-send-test', logger });
  await ensureOutboundStreams(messaging);
});
afterAll(async () => {
  await messaging?.close();
  await Promise.all([testMongo?.stop(), nats?.stop()]);
});

describe('the outbox relay through the JetStream sender', () => {
  it('stores one event on OUTBOUND_EVENTS when a relay dies after sending and another sends again', async () => {
    const collection = db.collection<OutboxDocument & { status: string }>('invoices');
    await collection.insertOne({ _id: 'in_1' as never, status: 'open' });
    const { entries } = await updateWithOutbox({
      collection,
      filter: { _id: 'in_1' as never },
      update: { $set: { status: 'paid' } },
      events: [{ workspaceId: 'ws_outbox', eventType: 'invoice.paid', payload: { invoiceId: 'in_1' } }],
    });
    const sender = createOutboundSender({ js: messaging.js });
    const results: unknown[] = [];
    const send: OutboxSend = async (...args) => {
      const result = await sender(...args);
      results.push(result);
      return result;
    };
    const dying = Object.create(collection, {
      updateOne: { value: () => Promise.reject(new Error('process killed')) },
    }) as OutboxCollection;
    await relayOutbox({ collections: [dying], send, logger });
    await relayOutbox({ collections: [db.collection<OutboxDocument>('invoices')], send, logger });

    const eventId = eventIdFor('ws_outbox', entries[0]!.id);
    expect(results).toEqual([
      { eventId, duplicate: false },
      { eventId, duplicate: true },
    ]);
    const stream = await messaging.jsm.streams.info(OUTBOUND_EVENTS_STREAM);
    expect(stream.state.messages).toBe(1);
    const stored = await messaging.jsm.streams.getMessage(OUTBOUND_EVENTS_STREAM, {
      last_by_subj: 'outbound.events.ws_outbox',
    });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(eventId);
    expect(JSON.parse(stored!.string())).toMatchObject({
      eventId,
      workspaceId: 'ws_outbox',
      eventType: 'invoice.paid',
      idempotencyKey: entries[0]!.id,
    });
    expect(await collection.findOne({ _id: 'in_1' as never })).toMatchObject({ status: 'paid', _outbox: [] });
  });
});
