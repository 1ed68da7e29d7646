import { waitFor } from '@berth/local-infra/testing';
import { createEndpoint, createOutboundSender, outboundCollections } from '@berth/outbound';
import type { ServiceProcess } from '../support/service-process';
import { WebhookReceiver } from '../support/webhook-receiver';
import { mapWithConcurrency } from '../support/wait-for';
import { OutboundTestServers } from './support';

const ENDPOINTS = 20;
const EVENTS = 2000;
const servers = new OutboundTestServers();
const DISPATCHER_ENV = {
  OUTBOUND_RETRY_SCHEDULE_MS: '0,200,400,800,1000,1000,1000,1000',
  // Short enough that deliveries held by the killed process come back quickly.
  SHUTDOWN_GRACE_MS: '2000',
};
const receivers: WebhookReceiver[] = [];
let dispatcher: ServiceProcess | undefined;

beforeAll(() => servers.start(), 60_000);
afterAll(async () => {
  await dispatcher?.kill().catch(() => undefined);
  await Promise.all(receivers.map((receiver) => receiver.stop()));
  await servers.stop();
});

describe('dispatcher killed during a burst', () => {
  it(`delivers every one of ${EVENTS} events to each of ${ENDPOINTS} endpoints, none twice in effect, after a SIGKILL and a restart`, async () => {
    const db = servers.freshDb();
    const collections = outboundCollections(db);
    for (let index = 0; index < ENDPOINTS; index++) {
      const receiver = await new WebhookReceiver().start();
      receivers.push(receiver);
      const { secret } = await createEndpoint({ collections }, { workspaceId: 'ws_crash', url: receiver.url });
      receiver.setSecrets([secret]);
    }
    dispatcher = await servers.startDispatcherProcess(db.databaseName, DISPATCHER_ENV);

    const send = createOutboundSender({ js: servers.product.js });
    const total = (): number => receivers.reduce((sum, receiver) => sum + receiver.accepted.size, 0);
    const sending = mapWithConcurrency(
      Array.from({ length: EVENTS }, (_, n) => n),
      64,
      (n) => send('ws_crash', 'order.created', { n }, { idempotencyKey: `order-${n}` }),
    );
    // Kill it in the middle of the burst: once a quarter of the deliveries arrived.
    await receivers[0].waitUntil(() => total() >= (EVENTS * ENDPOINTS) / 4, 120_000, 'a quarter of the deliveries');
    await dispatcher.kill();
    const deliveredBeforeKill = total();
    await sending;
    dispatcher = await servers.startDispatcherProcess(db.databaseName, DISPATCHER_ENV);

    await Promise.all(receivers.map((receiver) => receiver.waitForAccepted(EVENTS, 240_000)));
    const raw = receivers.reduce((sum, receiver) => sum + receiver.requests.length, 0);
    const duplicates = raw - EVENTS * ENDPOINTS;
    process.stdout.write(
      `dispatcher-crash: ${deliveredBeforeKill} delivered before the SIGKILL, ${raw} raw deliveries, ${duplicates} duplicates\n`,
    );
    expect(deliveredBeforeKill).toBeLessThan(EVENTS * ENDPOINTS);
    for (const receiver of receivers) {
      expect(receiver.accepted.size).toBe(EVENTS);
      const events = new Set(
        receiver.requests.map((request) => (JSON.parse(request.body) as { data: { n: number } }).data.n),
      );
      expect(events.size).toBe(EVENTS);
      expect(receiver.requests.every((request) => request.verifiedWith === 0)).toBe(true);
    }
    // Raw duplicates are the messages the killed process held (16 per lane) and those whose ack it had sent but the
    // server had not stored: each is attempted again, and the receivers dedupe it by webhook-id.
    expect(duplicates).toBeLessThanOrEqual(ENDPOINTS * 16 * 2);
    // Every delivery ends logged as delivered (the log entry is written right after the receiver's 2xx).
    await waitFor(() => collections.attempts.countDocuments({ status: 'delivered' }), {
      what: 'every delivery logged as delivered',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (count) => count >= EVENTS * ENDPOINTS,
    });
    await dispatcher.stop();
    dispatcher = undefined;
  }, 300_000);
});
