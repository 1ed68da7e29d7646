/**
 * The duplicate lookup under a NATS user that may not read the stream: the gateway reads a duplicate's first copy
 * to tell a provider's retry from a late resend, and a refusal of that read is a deployment error. It must surface
 * (the publish fails, so the request is answered 503 and logged) instead of being taken for a late resend, which
 * stored every retry again as a `Berth-Resent` copy.
 */
import { randomBytes } from 'node:crypto';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { connectMessaging, ensureStream, webhooksStream, type Messaging } from '@berth/messaging';
import { JetStreamWebhookPublisher, WebhookPublishError, type InboundWebhookEvent } from './publisher';
import { quietLogger, STREAM, uniqueId } from './test-harness';

const password = randomBytes(16).toString('hex');
let nats: NatsServerHandle;
let messaging: Messaging;

beforeAll(async () => {
  nats = await startNatsServer({
    binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR),
    configVariables: { GATEWAY_TEST_PASSWORD: password },
    // Everything but reading stored messages (the lookup), as a gateway user missing that one permission.
    extraConfig: `authorization {
  users: [{
    user: gateway
    password: $GATEWAY_TEST_PASSWORD
    permissions: { publish: { allow: [">"], deny: ["$JS.API.STREAM.MSG.GET.>", "$JS.API.DIRECT.GET.>"] }, subscribe: { allow: [">"] } }
  }]
}`,
  });
  messaging = await connectMessaging({
    servers: `nats://gateway:${password}@127.0.0.1:${nats.port}`,
    name: 'gateway-permissions-test',
    logger: quietLogger(),
    timeoutMs: 2000,
  });
  await ensureStream(messaging.jsm, webhooksStream());
}, 60_000);

afterAll(async () => {
  await messaging?.close();
  await nats?.stop();
});

function event(eventId: string): InboundWebhookEvent {
  return {
    provider: 'stripe',
    eventId,
    type: 'invoice.paid',
    receivedAt: new Date().toISOString(),
    data: new TextEncoder().encode(JSON.stringify({ id: eventId })),
  };
}

it('fails the publish of a duplicate, naming the permission, and stores no resent copy', async () => {
  const publisher = new JetStreamWebhookPublisher({
    messaging,
    streamName: STREAM,
    timeoutMs: 5000,
    resendCopyAfterMs: 60_000,
  });
  try {
    const id = uniqueId('evt');
    expect(await publisher.publish(event(id))).toBe('stored');
    const before = (await messaging.jsm.streams.info(STREAM)).state.messages;
    const retry = publisher.publish(event(id));
    await expect(retry).rejects.toThrow(WebhookPublishError);
    await expect(retry).rejects.toThrow(/may not read WEBHOOKS.*\$JS\.API\.STREAM\.MSG\.GET\.WEBHOOKS/);
    expect((await messaging.jsm.streams.info(STREAM)).state.messages).toBe(before);
  } finally {
    publisher.close();
  }
});

it('never looks a duplicate up when resent copies are off', async () => {
  const publisher = new JetStreamWebhookPublisher({ messaging, streamName: STREAM, timeoutMs: 5000 });
  try {
    const id = uniqueId('evt');
    expect(await publisher.publish(event(id))).toBe('stored');
    expect(await publisher.publish(event(id))).toBe('duplicate');
  } finally {
    publisher.close();
  }
});
