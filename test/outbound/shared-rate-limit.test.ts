/**
 * An endpoint's rate limit across dispatcher replicas: two dispatcher processes on one database and one NATS server
 * deliver a backlog to one rate-limited loopback receiver. Together they never put more than the limit into any
 * second the receiver counts (each alone would send the whole limit: the window in `berth_outbound_rates` is what
 * holds them to it); after one is killed, the survivor takes the whole limit at once, more than the half a
 * per-replica share would leave it.
 */
import { createEndpoint, createOutboundSender, outboundCollections } from '@berth/outbound';
import type { ServiceProcess } from '../support/service-process';
import type { ReceivedRequest } from '../support/webhook-receiver';
import { WebhookReceiver } from '../support/webhook-receiver';
import { mapWithConcurrency } from '../support/wait-for';
import { OutboundTestServers } from './support';

const LIMIT = 10;
const EVENTS = 150;
const servers = new OutboundTestServers();
const processes: ServiceProcess[] = [];
let receiver: WebhookReceiver | undefined;

beforeAll(() => servers.start(), 60_000);
afterAll(async () => {
  await Promise.all(processes.map((dispatcher) => dispatcher.kill().catch(() => undefined)));
  await receiver?.stop();
  await servers.stop();
});

/** The most requests that arrived within any window [t, t + ms). */
function busiestWindow(requests: readonly ReceivedRequest[], ms: number): number {
  let most = 0;
  for (let start = 0, end = 0; start < requests.length; start++) {
    while (end < requests.length && requests[end].at < requests[start].at + ms) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

const busiestSecond = (requests: readonly ReceivedRequest[]): number => busiestWindow(requests, 1000);

/**
 * The limit holds where the dispatchers send; the receiver sees arrivals squeezed by the loopback's and the
 * scheduler's jitter (CI saw 11 arrivals in one second while every 3 s held exactly 30), so the per-second bound is
 * checked on a window that allows 100 ms of it, and the 3-second window on the limit itself.
 */
const busiestSecondLessJitter = (requests: readonly ReceivedRequest[]): number => busiestWindow(requests, 900);

/** Deliveries a dispatcher process counted as delivered, read from its `/metrics`. */
async function deliveredBy(dispatcher: ServiceProcess): Promise<number> {
  const port = Number((await dispatcher.process.waitForLine(/"port":(\d+)/, 1000))[1]);
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^webhook_outbound_total\{outcome="delivered"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

describe('rate limit shared by dispatcher replicas', () => {
  it(`two replicas together send at most ${LIMIT}/s to one endpoint; one killed, the other sends the whole ${LIMIT}/s`, async () => {
    const db = servers.freshDb();
    receiver = await new WebhookReceiver().start();
    const collections = outboundCollections(db);
    await createEndpoint({ collections }, { workspaceId: 'ws_rates', url: receiver.url, rateLimitPerSecond: LIMIT });
    const [first, second] = await Promise.all([
      servers.startDispatcherProcess(db.databaseName),
      servers.startDispatcherProcess(db.databaseName),
    ]);
    processes.push(first, second);

    const send = createOutboundSender({ js: servers.product.js });
    await mapWithConcurrency(
      Array.from({ length: EVENTS }, (_, n) => n),
      16,
      (n) => send('ws_rates', 'rate.event', { n }, { idempotencyKey: `rate-${db.databaseName}-${n}` }),
    );
    await receiver.waitForAccepted(40, 30_000);
    const [byFirst, bySecond] = await Promise.all([deliveredBy(first), deliveredBy(second)]);
    await first.kill();
    const killedAt = performance.now();
    const before = receiver.requests.length;
    await receiver.waitUntil(() => receiver!.requests.length >= before + 40, 30_000, '40 more requests after the kill');

    const requests = receiver.requests;
    const together = requests.slice(0, before);
    const alone = requests.filter((request) => request.at >= killedAt + 1100);
    const rate = (measured: readonly ReceivedRequest[]): number =>
      ((measured.length - 1) * 1000) / (measured[measured.length - 1].at - measured[0].at);
    process.stdout.write(
      `shared-rate-limit: before the kill ${byFirst} + ${bySecond} delivered, busiest second ` +
        `${busiestSecond(together)}, busiest 3 s ${busiestWindow(together, 3000)}; survivor ${rate(alone).toFixed(2)}/s over ${alone.length}, ` +
        `busiest second ${busiestSecond(alone)}; overall busiest second ${busiestSecond(requests)}\n`,
    );
    // Both replicas delivered, and never more than the limit in any second, before the kill, across it, after it.
    expect(byFirst).toBeGreaterThan(0);
    expect(bySecond).toBeGreaterThan(0);
    expect(busiestSecondLessJitter(requests)).toBeLessThanOrEqual(LIMIT);
    expect(busiestWindow(together, 3000)).toBeLessThanOrEqual(3 * LIMIT);
    // The survivor alone: the whole limit (a share would hold it to LIMIT / 2).
    expect(alone.length).toBeGreaterThanOrEqual(20);
    expect(rate(alone)).toBeLessThanOrEqual(LIMIT * 1.02);
    expect(rate(alone)).toBeGreaterThan(LIMIT * 0.75);
    expect(busiestSecond(alone)).toBeGreaterThanOrEqual(LIMIT - 2);
  }, 120_000);
});
