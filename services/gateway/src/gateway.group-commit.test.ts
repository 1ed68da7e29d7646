import Stripe from 'stripe';
import { defaultToolsBinDir } from '@berth/local-infra';
import { decodeWebhookBatch, readProviderHeaders, WEBHOOK_HEADERS } from '@berth/messaging';
import {
  STREAM,
  startGateway,
  startNatsFixture,
  uniqueId,
  unixSeconds,
  type NatsFixture,
  type TestGateway,
} from './test-harness';

const natsBinDir = defaultToolsBinDir(process.env.BERTH_TOOLS_DIR);
const stripe = new Stripe('sk_test_unused_by_these_tests');
const SECRET = 'whsec_test_group_commit';
const TYPE = 'customer.subscription.updated';

function signedEvent(id = uniqueId('evt')): { id: string; body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id,
    object: 'event',
    type: TYPE,
    created: unixSeconds(),
    data: { object: { id: 'sub_1', customer: 'cus_1', note: 'line\nbreak "quoted" Zoë' } },
  });
  return {
    id,
    body,
    headers: { 'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET }) },
  };
}

describe('gateway: group commit of the events of one subject', () => {
  let nats: NatsFixture;
  let gateway: TestGateway;

  beforeAll(async () => {
    nats = await startNatsFixture(natsBinDir);
    gateway = await startGateway(nats, {
      env: { STRIPE_WEBHOOK_SECRET: SECRET, WEBHOOK_BATCH_IN_FLIGHT: '1', WEBHOOK_RATE_LIMIT_PER_MINUTE: '0' },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await nats?.close();
  });
  beforeEach(() => nats.purge());

  /** Every event stored, by id: the raw body of a single-event message, or each item of a batch message. */
  async function storedEvents(): Promise<{
    bodies: Map<string, string>;
    signatures: Map<string, string | undefined>;
    messages: number;
    batches: number;
  }> {
    const info = await nats.messaging.jsm.streams.info(STREAM);
    const bodies = new Map<string, string>();
    const signatures = new Map<string, string | undefined>();
    let batches = 0;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
      const stored = await nats.messaging.jsm.streams.getMessage(STREAM, { seq });
      if (stored === null) throw new Error(`message ${seq} of ${STREAM} is missing`);
      if (stored.header.get(WEBHOOK_HEADERS.batchSize)) {
        batches += 1;
        const items = decodeWebhookBatch(stored.data);
        expect(items).toHaveLength(Number(stored.header.get(WEBHOOK_HEADERS.batchSize)));
        expect(stored.header.has('Nats-Msg-Id')).toBe(false);
        for (const item of items) {
          bodies.set(item.eventId, Buffer.from(item.payload).toString('utf8'));
          signatures.set(item.eventId, item.headers?.['stripe-signature']);
        }
      } else {
        const eventId = stored.header.get(WEBHOOK_HEADERS.eventId);
        bodies.set(eventId, Buffer.from(stored.data).toString('utf8'));
        signatures.set(eventId, readProviderHeaders(stored.header)['stripe-signature']);
      }
    }
    return { bodies, signatures, messages: info.state.messages, batches };
  }

  it('stores 60 concurrent events in fewer messages, every body byte for byte, every answer 200 after its PubAck', async () => {
    const events = Array.from({ length: 60 }, () => signedEvent());
    const responses = await Promise.all(events.map((event) => gateway.post('stripe', event.body, event.headers)));
    expect(responses.map((response) => response.status)).toEqual(events.map(() => 200));
    const { bodies, signatures, messages, batches } = await storedEvents();
    expect(messages).toBeLessThan(events.length);
    expect(batches).toBeGreaterThan(0);
    expect(new Map(events.map((event) => [event.id, event.body]))).toEqual(bodies);
    // Each event keeps its own request's signature header, in a batch item as in a single-event message.
    expect(new Map(events.map((event) => [event.id, event.headers['stripe-signature']]))).toEqual(signatures);
  });

  it('stores an event sent five times at once only once', async () => {
    const event = signedEvent();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => gateway.post('stripe', event.body, event.headers)),
    );
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    const { bodies, messages } = await storedEvents();
    expect({ messages, ids: [...bodies.keys()] }).toEqual({ messages: 1, ids: [event.id] });
  });
});
