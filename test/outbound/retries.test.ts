import { Webhook } from 'standardwebhooks';
import { rotateEndpointSecret } from '@berth/outbound';
import { newKey, outboundTestHarness, TEST_RETRY_SCHEDULE_MS } from './support';

const { receiver, dispatcher } = outboundTestHarness();

describe('outbound delivery with retries', () => {
  it('retries a receiver that fails 3 times on the schedule, then delivers once in effect, every request signed', async () => {
    const hook = await receiver([], (request) => ({
      status: request.nth <= 3 ? 500 : 200,
      body: request.nth <= 3 ? 'down' : 'thanks',
    }));
    const test = await dispatcher();
    const { endpoint, secret } = await test.createEndpoint({ url: hook.url });
    hook.setSecrets([secret]);

    const sent = await test.send('ws_test', 'invoice.paid', { invoiceId: 'in_1' }, { idempotencyKey: newKey() });
    await hook.waitForAccepted(1, 20_000);

    expect(hook.requests).toHaveLength(4);
    expect(new Set(hook.requests.map((request) => request.webhookId)).size).toBe(1);
    expect(hook.requests.every((request) => request.verifiedWith === 0)).toBe(true);
    expect(JSON.parse(hook.requests[3].body)).toMatchObject({ type: 'invoice.paid', data: { invoiceId: 'in_1' } });
    // The gaps follow the (compressed) schedule: at least 100, 200, 300 ms.
    const gaps = hook.requests.slice(1).map((request, index) => request.at - hook.requests[index].at);
    gaps.forEach((gap, index) => expect(gap).toBeGreaterThanOrEqual(TEST_RETRY_SCHEDULE_MS[index + 1] - 5));

    const delivery = await test.waitForDelivery(
      sent.eventId,
      (row) => row.status === 'delivered',
      'the delivery logged as delivered',
    );
    expect(delivery.endpointId).toBe(endpoint.id);
    expect(delivery.attemptCount).toBe(4);
    expect(delivery.log.map((attempt) => [attempt.outcome, attempt.statusCode, attempt.responseBody])).toEqual([
      ['retry', 500, 'down'],
      ['retry', 500, 'down'],
      ['retry', 500, 'down'],
      ['delivered', 200, 'thanks'],
    ]);
    expect(delivery.log.every((attempt) => (attempt.durationMs ?? -1) >= 0 && attempt.address === '127.0.0.1')).toBe(
      true,
    );
  });

  it('signs with the old and the new secret during a rotation, so a receiver verifies with either', async () => {
    const hook = await receiver();
    const test = await dispatcher();
    const { endpoint, secret: oldSecret } = await test.createEndpoint({ url: hook.url });
    const rotated = await rotateEndpointSecret({ collections: test.collections, clock: test.clock }, endpoint.id, {
      overlapMs: 60 * 60 * 1000,
    });
    await test.dispatcher.reloadEndpoints();

    hook.setSecrets([oldSecret]);
    await test.send('ws_test', 'user.created', { n: 1 }, { idempotencyKey: newKey() });
    await hook.waitForAccepted(1, 10_000);
    hook.setSecrets([rotated.secret]);
    await test.send('ws_test', 'user.created', { n: 2 }, { idempotencyKey: newKey() });
    await hook.waitForAccepted(2, 10_000);

    expect(hook.requests.map((request) => request.verifiedWith)).toEqual([0, 0]);
    // Each request of the overlap carries two signatures: either secret alone verifies it.
    for (const request of hook.requests) {
      expect(request.signature.split(' ')).toHaveLength(2);
      for (const secret of [oldSecret, rotated.secret]) {
        expect(() =>
          new Webhook(secret).verify(request.body, {
            'webhook-id': request.webhookId,
            'webhook-timestamp': request.timestamp,
            'webhook-signature': request.signature,
          }),
        ).not.toThrow();
      }
    }

    // After the overlap only the new secret signs.
    test.clock.advance(2 * 60 * 60 * 1000);
    hook.setSecrets([oldSecret]);
    await test.send('ws_test', 'user.created', { n: 3 }, { idempotencyKey: newKey() });
    await hook.waitUntil(() => hook.requests.length >= 3, 10_000, 'a third request');
    expect(hook.requests[2].signature.split(' ')).toHaveLength(1);
    expect(hook.requests[2].verifiedWith).toBe(-1);
  });

  it('sends one event for one idempotency key', async () => {
    const hook = await receiver();
    const test = await dispatcher();
    await test.createEndpoint({ url: hook.url });
    const key = newKey();
    const [first, second] = [
      await test.send('ws_test', 'a.b', { n: 1 }, { idempotencyKey: key }),
      await test.send('ws_test', 'a.b', { n: 1 }, { idempotencyKey: key }),
    ];
    expect(second).toEqual({ eventId: first.eventId, duplicate: true });
    await hook.waitForAccepted(1, 10_000);
    await test.send('ws_test', 'a.b', { n: 2 }, { idempotencyKey: newKey() });
    await hook.waitForAccepted(2, 10_000);
    expect(hook.requests).toHaveLength(2);
  });
});
