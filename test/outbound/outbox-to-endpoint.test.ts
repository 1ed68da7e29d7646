import { createOutboundSender, insertWithOutbox, relayOutbox, type OutboxDocument } from '@berth/outbound';
import { WebhookReceiver } from '../support/webhook-receiver';
import { OutboundTestServers, TestDispatcher } from './support';

const servers = new OutboundTestServers();
let receiver: WebhookReceiver;
let test: TestDispatcher;

beforeAll(async () => {
  await servers.start();
  receiver = await new WebhookReceiver().start();
  test = await new TestDispatcher(servers).start();
}, 60_000);
afterAll(async () => {
  await test?.stop();
  await receiver?.stop();
  await servers.stop();
});

describe('outbox to endpoint', () => {
  it('delivers an event written with a business document, once, however often the relay sends it', async () => {
    const { secret } = await test.createEndpoint({
      workspaceId: 'ws_outbox',
      url: receiver.url,
      eventTypes: ['invoice.paid'],
    });
    receiver.setSecrets([secret]);
    const invoices = test.db.collection<{ _id: string; status: string }>('invoices');
    await insertWithOutbox({
      collection: invoices,
      document: { _id: 'in_1', status: 'paid' },
      events: [
        { workspaceId: 'ws_outbox', eventType: 'invoice.paid', payload: { invoiceId: 'in_1', 'amount.cents': 900 } },
      ],
    });
    const entry = (await test.db.collection<OutboxDocument>('invoices').findOne({ _id: 'in_1' as never }))
      ?._outbox?.[0];
    const send = createOutboundSender({ js: servers.product.js });
    // A relay that crashed after sending and before removing the entry sends it again under the same key.
    await send('ws_outbox', 'invoice.paid', JSON.parse(entry?.payload ?? 'null'), { idempotencyKey: entry?.id ?? '' });
    const pass = await relayOutbox({
      collections: [test.db.collection<OutboxDocument>('invoices')],
      send,
      logger: servers.logger,
    });
    expect(pass).toMatchObject({ sent: 1, failed: 0 });

    await receiver.waitForAccepted(1, 10_000);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0].verifiedWith).toBe(0);
    expect(JSON.parse(receiver.requests[0].body)).toMatchObject({
      type: 'invoice.paid',
      data: { invoiceId: 'in_1', 'amount.cents': 900 },
    });
    expect(
      (await test.db.collection<OutboxDocument>('invoices').findOne({ _id: 'in_1' as never }))?._outbox ?? [],
    ).toEqual([]);
  });
});
