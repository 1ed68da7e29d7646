import { waitFor } from '@berth/local-infra/testing';
import { Writable } from 'node:stream';
import { createLogger } from '@berth/logger';
import { sampleValue } from '@berth/metrics/testing';
import { createAddressPolicy, listDeliveries, type EndpointDocument } from '@berth/outbound';
import { ShiftedClock } from '@berth/contract/testing';
import { newKey, outboundTestHarness } from './support';

const DAY_MS = 24 * 60 * 60 * 1000;
const { receiver, dispatcher } = outboundTestHarness();

describe('endpoint failures', () => {
  it('waits at least what Retry-After asks on a 429', async () => {
    const hook = await receiver([], (request) =>
      request.nth === 1 ? { status: 429, headers: { 'retry-after': '7' } } : { status: 200 },
    );
    const test = await dispatcher();
    await test.createEndpoint({ url: hook.url });
    await test.send('ws_test', 'invoice.paid', {}, { idempotencyKey: newKey() });
    await hook.waitForAccepted(1, 20_000);
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests[1].at - hook.requests[0].at).toBeGreaterThanOrEqual(7000);
  }, 30_000);

  it('disables an endpoint at once on 410 Gone and stops its deliveries, retries included', async () => {
    const hook = await receiver([], (request) => ({ status: JSON.parse(request.body).type === 'a.gone' ? 410 : 500 }));
    const test = await dispatcher(undefined, { retrySchedule: [0, 300, 300, 300, 300, 300, 300, 300] });
    const { endpoint } = await test.createEndpoint({ url: hook.url });

    const failing = await test.send('ws_test', 'a.fail', {}, { idempotencyKey: newKey() });
    await hook.waitUntil(() => hook.requests.length >= 1, 10_000, 'the first failing request');
    const gone = await test.send('ws_test', 'a.gone', {}, { idempotencyKey: newKey() });
    await waitFor(() => test.collections.endpoints.findOne({ _id: endpoint.id }), {
      what: 'the endpoint disabled',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (row) => row?.disabledAt !== null,
    });

    const goneDelivery = await test.deliveryOf(gone.eventId);
    expect(goneDelivery).toMatchObject({ status: 'failed', attemptCount: 1 });
    expect(goneDelivery?.log[0]).toMatchObject({ outcome: 'gone', statusCode: 410 });
    expect(await test.collections.endpoints.findOne({ _id: endpoint.id })).toMatchObject({ disabledReason: 'gone' });
    // The retry queued before the 410 comes due and is skipped, not sent.
    await test.waitForDelivery(failing.eventId, (row) => row.status === 'skipped', 'the failing delivery skipped');
    const requestsAfterDisable = hook.requests.length;
    // A new event is not fanned out to the disabled endpoint.
    const later = await test.send('ws_test', 'a.fail', {}, { idempotencyKey: newKey() });
    const event = await waitFor(() => test.collections.events.findOne({ _id: later.eventId }), {
      what: 'the later event fanned out',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (row) => row !== null,
    });
    expect(event?.endpointIds).toEqual([]);
    expect(hook.requests.length).toBe(requestsAfterDisable);
    expect(
      sampleValue(await test.registry.metrics(), 'webhook_outbound_endpoints_disabled_total', { reason: 'gone' }),
    ).toBe(1);
  });

  it('refuses a private address under the strict policy: nothing is sent, the attempt is logged as refused', async () => {
    const hook = await receiver();
    const test = await dispatcher(undefined, { policy: createAddressPolicy() });
    await test.createEndpoint({ url: hook.url });
    const sent = await test.send('ws_test', 'invoice.paid', {}, { idempotencyKey: newKey() });
    const delivery = await test.waitForDelivery(
      sent.eventId,
      (row) => row.status === 'failed',
      'the refused delivery to fail',
    );
    expect(delivery.log.length).toBe(8);
    expect(
      delivery.log.every(
        (attempt) => attempt.outcome === 'refused' && attempt.address === '127.0.0.1' && attempt.statusCode === null,
      ),
    ).toBe(true);
    expect(hook.requests).toHaveLength(0);
  });

  it('disables an endpoint that fails for 5 days, with exactly one alert', async () => {
    const hook = await receiver([], () => ({ status: 503 }));
    const clock = new ShiftedClock();
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(
          ...chunk
            .toString('utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        );
        callback();
      },
    });
    const test = await dispatcher(clock, {
      logger: createLogger({ service: 'dispatcher', level: 'error', destination }),
      retrySchedule: [0, 50, 50],
    });
    const { endpoint } = await test.createEndpoint({ url: hook.url });
    const endpointRow = () => test.collections.endpoints.findOne({ _id: endpoint.id }) as Promise<EndpointDocument>;

    for (let day = 0; day < 5; day++) {
      const sent = await test.send('ws_test', 'invoice.paid', { day }, { idempotencyKey: newKey() });
      await test.waitForDelivery(sent.eventId, (row) => row.status === 'failed', `day ${day}'s delivery to fail`);
      expect((await endpointRow()).disabledAt).toBeNull();
      clock.advance(DAY_MS);
    }
    expect((await endpointRow()).failingSince).not.toBeNull();
    clock.advance(60_000);
    // Day 5: ten deliveries fail at the same moment; one of them disables the endpoint, and only one alerts.
    await Promise.all(
      Array.from({ length: 10 }, (_, n) => test.send('ws_test', 'invoice.paid', { n }, { idempotencyKey: newKey() })),
    );
    await waitFor(endpointRow, {
      what: 'the endpoint disabled',
      timeoutMs: 15_000,
      intervalMs: 100,
      until: (row) => row.disabledAt !== null,
    });
    await waitFor(() => listDeliveries({ collections: test.collections }, { status: 'pending' }), {
      what: 'every delivery settled',
      timeoutMs: 15_000,
      intervalMs: 100,
      until: (pending) => pending.length === 0,
    });

    expect(await endpointRow()).toMatchObject({ disabledReason: 'failing', autoDisableAlertedAt: expect.any(Date) });
    expect(await test.collections.alerts.countDocuments({ endpointId: endpoint.id })).toBe(1);
    expect(sampleValue(await test.registry.metrics(), 'webhook_outbound_auto_disable_alerts_total')).toBe(1);
    expect(lines.filter((line) => line.alert === 'endpoint-auto-disabled')).toHaveLength(1);
  });

  it('raises one alert when two replicas see the same endpoint fail past 5 days at the same moment', async () => {
    const hook = await receiver([], () => ({ status: 500 }));
    const clock = new ShiftedClock();
    const first = await dispatcher(clock, { retrySchedule: [0, 50, 50] });
    const second = await dispatcher(clock, { retrySchedule: [0, 50, 50], db: first.db });
    const { endpoint } = await first.createEndpoint({ url: hook.url });
    await second.dispatcher.reloadEndpoints();
    const endpointRow = () => first.collections.endpoints.findOne({ _id: endpoint.id }) as Promise<EndpointDocument>;

    const sent = await first.send('ws_test', 'invoice.paid', {}, { idempotencyKey: newKey() });
    await first.waitForDelivery(sent.eventId, (row) => row.status === 'failed', 'the first delivery to fail');
    clock.advance(5 * DAY_MS + 60_000);
    await Promise.all(
      Array.from({ length: 20 }, (_, n) => first.send('ws_test', 'invoice.paid', { n }, { idempotencyKey: newKey() })),
    );
    await waitFor(endpointRow, {
      what: 'the endpoint disabled',
      timeoutMs: 15_000,
      intervalMs: 100,
      until: (row) => row.disabledAt !== null,
    });
    await waitFor(() => listDeliveries({ collections: first.collections }, { status: 'pending' }), {
      what: 'every delivery settled',
      timeoutMs: 15_000,
      intervalMs: 100,
      until: (pending) => pending.length === 0,
    });

    // Both replicas took deliveries of the endpoint; one alert in all.
    const attemptsPerReplica = await Promise.all(
      [first, second].map(
        async (replica) =>
          sampleValue(await replica.registry.metrics(), 'webhook_outbound_total', { outcome: 'retry' }) ?? 0,
      ),
    );
    expect(attemptsPerReplica.every((count) => count > 0)).toBe(true);
    const alerts = await Promise.all(
      [first, second].map(
        async (replica) =>
          sampleValue(await replica.registry.metrics(), 'webhook_outbound_auto_disable_alerts_total') ?? 0,
      ),
    );
    expect(alerts[0] + alerts[1]).toBe(1);
    expect(await first.collections.alerts.countDocuments({ endpointId: endpoint.id })).toBe(1);
  });
});
