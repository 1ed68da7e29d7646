import type { MongoClient } from 'mongodb';
import { startTestMongo, type TestMongo } from '../test-support/test-mongo';
import { outboundCollections } from '../collections';
import { deleteOldDeliveries } from './delete-old-deliveries';
import type { DeliveryLogEntry } from './delivery-document';

let testMongo: TestMongo;
let mongo: MongoClient;

beforeAll(async () => {
  testMongo = await startTestMongo();
  mongo = testMongo.client;
}, 60_000);
afterAll(() => testMongo?.stop());

describe('deleteOldDeliveries', () => {
  it('deletes the log, deliveries and events created before the cut-off, and keeps the rest', async () => {
    const collections = outboundCollections(mongo.db('retention'));
    const old = new Date('2026-10-01T00:00:00Z');
    const recent = new Date('2026-11-29T00:00:00Z');
    const rows = (createdAt: Date, prefix: string, count: number) =>
      Array.from({ length: count }, (_, n) => `${prefix}${n}`).map((id) => ({ id, createdAt }));
    for (const { id, createdAt } of [...rows(old, 'old', 25), ...rows(recent, 'new', 5)]) {
      await collections.events.insertOne({
        _id: `evt_${id}`,
        workspaceId: 'ws',
        eventType: 'a.b',
        body: '{}',
        idempotencyKey: id,
        createdAt,
        endpointIds: ['ep_1'],
      });
      await collections.deliveries.insertOne({
        _id: `msg_${id}`,
        eventId: `evt_${id}`,
        endpointId: 'ep_1',
        workspaceId: 'ws',
        eventType: 'a.b',
        createdAt,
      });
      const entry: DeliveryLogEntry = {
        _id: `msg_${id}:r0:a1`,
        deliveryId: `msg_${id}`,
        endpointId: 'ep_1',
        round: 0,
        attempt: 1,
        kind: 'attempt',
        outcome: 'delivered',
        status: 'delivered',
        statusCode: 200,
        durationMs: 1,
        at: createdAt,
        responseBody: 'ok',
        error: null,
        address: '127.0.0.1',
        nextAttemptAt: null,
        createdAt,
      };
      await collections.attempts.insertOne(entry);
    }
    const deleted = await deleteOldDeliveries({ collections }, new Date('2026-11-01T00:00:00Z'));
    expect(deleted).toEqual({ attempts: 25, deliveries: 25, events: 25 });
    expect(await collections.deliveries.countDocuments()).toBe(5);
    expect(await collections.attempts.countDocuments()).toBe(5);
    expect(await collections.events.countDocuments()).toBe(5);
  });
});
