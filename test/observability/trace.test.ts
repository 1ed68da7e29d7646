/**
 * Issue 5: "A test starts a real Jaeger … and the services natively, sends one signed Stripe webhook, and finds
 * through Jaeger's query API one trace that holds spans from the gateway, billing-sync, MongoDB and the Stripe call."
 *
 * Jaeger v1.76 all-in-one (built from the Go module proxy by deploy/local/install-jaeger.sh, cached after the first
 * build) runs with in-memory storage on free loopback ports; the gateway and billing-sync run as child processes
 * exporting to it over OTLP/HTTP, with NATS, FerretDB and the Stripe stand-in of the test mesh. One
 * `customer.subscription.updated` for a customer linked to a workspace makes billing-sync call the Stripe API.
 *
 * The trace id is taken from billing-sync's log lines (which is also the check that they carry it), then the trace is
 * read from Jaeger and its parent chain asserted:
 *   gateway  SERVER  POST /webhooks/stripe                       (root: the provider sent no trace context)
 *     └ … gateway PRODUCER publish webhooks.stripe.<type>          (under the HTTP span, named after its route)
 *         └ billing-sync CONSUMER process WEBHOOKS/billing-sync  (direct child, through the traceparent header)
 *             ├ billing-sync CLIENT MongoDB operations            (the inbox, the workspace lock, the billing write)
 *             └ billing-sync CLIENT GET /v1/subscriptions        (the Stripe call, to the stand-in)
 */
import { waitFor } from '@berth/local-infra/testing';
import { randomUUID } from 'node:crypto';
import { startMesh, type Mesh } from '../support/mesh';
import {
  ancestry,
  installJaeger,
  parentOf,
  serviceOf,
  startJaeger,
  tagOf,
  type JaegerHandle,
  type JaegerSpan,
  type JaegerTrace,
} from './support/jaeger';

/**
 * Jaeger is built once per machine and cached (deploy/local/install-jaeger.sh): a cold build, with empty Go module
 * and build caches, took 13 min 52 s on a shared 2-core machine; once cached the script returns at once.
 */
const JAEGER_INSTALL_TIMEOUT_MS = 20 * 60_000;

const run = randomUUID().slice(0, 8);
let jaeger: JaegerHandle | undefined;
let mesh: Mesh | undefined;

beforeAll(async () => {
  const binary = await installJaeger(JAEGER_INSTALL_TIMEOUT_MS);
  jaeger = await startJaeger({ binary });
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    // Export each span within 200 ms instead of the default 5 s, so the test waits less.
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
  mesh = await startMesh({
    name: 'observability_trace',
    services: ['gateway', 'billing-sync'],
    env: { gateway: tracing, 'billing-sync': { ...tracing, HEALTH_PORT: '0', HEALTH_HOST: '127.0.0.1' } },
  });
}, JAEGER_INSTALL_TIMEOUT_MS + 180_000);

afterAll(async () => {
  await mesh?.stop();
  await jaeger?.stop();
}, 60_000);

const kindOf = (span: JaegerSpan): unknown => tagOf(span, 'span.kind');
const isMongo = (span: JaegerSpan): boolean =>
  tagOf(span, 'db.system') === 'mongodb' || tagOf(span, 'db.system.name') === 'mongodb';
const urlOf = (span: JaegerSpan): string => String(tagOf(span, 'url.full') ?? tagOf(span, 'http.url') ?? '');

/** The parts of the trace the issue names; undefined members are not there (yet). */
function partsOf(trace: JaegerTrace | undefined, standInUrl: string) {
  const spans = trace?.spans ?? [];
  const of = (service: string) => spans.filter((span) => trace && serviceOf(trace, span) === service);
  return {
    httpServer: of('gateway').find((span) => kindOf(span) === 'server'),
    publish: of('gateway').find((span) => kindOf(span) === 'producer'),
    consume: of('billing-sync').find((span) => kindOf(span) === 'consumer'),
    mongo: of('billing-sync').filter((span) => kindOf(span) === 'client' && isMongo(span)),
    stripe: of('billing-sync').find(
      (span) => kindOf(span) === 'client' && urlOf(span).startsWith(`${standInUrl}/v1/subscriptions`),
    ),
  };
}

describe('one webhook, one trace', () => {
  it('holds the gateway HTTP span, the publish, the consumer span, MongoDB calls and the Stripe call, parented in that order', async () => {
    const { db, standIn, sender } = mesh!;
    const workspaceId = `org_trace_${run}`;
    const customerId = `cus_trace_${run}`;
    const eventId = `evt_trace_${run}`;
    await db.collection<{ _id: string; name: string }>('workspaces').insertOne({ _id: workspaceId, name: 'Trace Inc' });
    standIn.setCustomer({ id: customerId, metadata: { workspaceId } });
    standIn.setSubscriptions(customerId, [
      { id: `sub_trace_${run}`, status: 'active', items: [{ priceId: 'price_pro', quantity: 2 }] },
    ]);

    const answer = await sender.sendStripe({
      id: eventId,
      object: 'event',
      type: 'customer.subscription.updated',
      api_version: '2025-03-31.basil',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: { id: `sub_trace_${run}`, object: 'subscription', customer: customerId, status: 'active' } },
    });
    expect(answer).toMatchObject({ status: 200, body: '{"received":true}' });

    // Log lines written while handling the event carry the trace id of the consumer span.
    const billingSync = mesh!.service('billing-sync');
    await waitFor(async () => billingSync.logged('Webhook event processed', { eventId }), {
      what: 'billing-sync to process the event',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (lines) => lines.length === 1,
    });
    const [synced] = billingSync.logged('Workspace billing synced', { customerId });
    const traceId = synced.traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    const eventLines = billingSync.lines.filter((line) => line.eventId === eventId);
    expect(eventLines.map((line) => line.msg)).toContain('Webhook event processed');
    expect(eventLines.every((line) => line.traceId === traceId)).toBe(true);

    // Jaeger receives the spans of both processes (batched) within a few seconds.
    const standInUrl = standIn.url.replace(/\/$/, '');
    const trace = await waitFor(() => jaeger!.trace(String(traceId)), {
      what: `trace ${String(traceId)} to hold every part in Jaeger`,
      timeoutMs: 30_000,
      intervalMs: 250,
      until: (found) => {
        const parts = partsOf(found, standInUrl);
        return Boolean(parts.httpServer && parts.publish && parts.consume && parts.stripe && parts.mongo.length > 0);
      },
    });
    const parts = partsOf(trace, standInUrl);
    const [httpServer, publish, consume, stripe] = [parts.httpServer!, parts.publish!, parts.consume!, parts.stripe!];
    const mongo = parts.mongo;
    const describe = (span: JaegerSpan) => `${serviceOf(trace!, span)} ${String(kindOf(span))} ${span.operationName}`;

    // The provider's request starts the trace; the publish happens inside it; the span is named after the route.
    expect(parentOf(trace!, httpServer)).toBeUndefined();
    expect(httpServer.operationName).toBe('POST /webhooks/:provider');
    expect(tagOf(httpServer, 'http.route')).toBe('/webhooks/:provider');
    expect(ancestry(trace!, publish).slice(1)).toContain(httpServer);
    expect(publish.operationName).toBe('publish webhooks.stripe.customer.subscription.updated');
    expect(tagOf(publish, 'messaging.message.id')).toBe(`stripe:${eventId}`);

    // The consumer span is the publish span's child, across processes, through the message's traceparent header.
    expect(parentOf(trace!, consume)).toBe(publish);
    expect(consume.operationName).toBe('process WEBHOOKS/billing-sync');
    // The handler's log lines name the consumer span: it is the active span while the handler runs.
    expect(synced.spanId).toBe(consume.spanID);

    // MongoDB calls and the Stripe API call happen inside the consumer span.
    for (const span of [...mongo, stripe])
      expect({ span: describe(span), underConsumer: ancestry(trace!, span).includes(consume) }).toEqual({
        span: describe(span),
        underConsumer: true,
      });
    expect(mongo.map((span) => span.operationName)).toEqual(
      expect.arrayContaining([expect.stringMatching(/webhookEvents/)]),
    );
    expect(tagOf(stripe, 'http.request.method') ?? tagOf(stripe, 'http.method')).toBe('GET');
    expect(tagOf(stripe, 'http.response.status_code') ?? tagOf(stripe, 'http.status_code')).toBe(200);

    // And the UI's search by service finds it.
    const listed = await waitFor(() => jaeger!.findTraces('gateway'), {
      what: 'the trace in the gateway service search',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (traces) => traces.some((candidate) => candidate.traceID === traceId),
    });
    expect(listed.length).toBeGreaterThan(0);
  }, 120_000);
});
