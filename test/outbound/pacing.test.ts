import type { ReceivedRequest } from '../support/webhook-receiver';
import { mapWithConcurrency } from '../support/wait-for';
import { newKey, outboundTestHarness } from './support';

const { receiver, dispatcher } = outboundTestHarness();

/**
 * The most requests that arrived within `windowMs` of one another. The dispatcher releases its sends 105 ms apart
 * at 10/s (`rate-limiter.test.ts` checks the spacing itself); what the receiver sees can be squeezed by the
 * loopback's and the scheduler's jitter, seen past 150 ms in clean-clone CI runs with the rest of the suite beside
 * it. So the window check allows 300 ms of it (ten arrivals at most in any 750 ms: eleven releases span 1,050 ms), and
 * the average rate over 80 arrivals is checked against the limit itself.
 */
function busiestWindow(requests: readonly ReceivedRequest[], windowMs: number): number {
  let most = 0;
  for (let start = 0; start < requests.length; start++) {
    let end = start;
    while (end < requests.length && requests[end].at < requests[start].at + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

function eventNumber(request: ReceivedRequest): number {
  return (JSON.parse(request.body) as { data: { n: number } }).data.n;
}

describe('pacing per endpoint', () => {
  it('holds a rate limit of 10/s under a burst of 500 events, while another endpoint keeps its own pace', async () => {
    const limited = await receiver();
    const free = await receiver();
    const test = await dispatcher();
    await test.createEndpoint({ url: limited.url, rateLimitPerSecond: 10 });
    await test.createEndpoint({ url: free.url });

    await mapWithConcurrency(
      Array.from({ length: 500 }, (_, n) => n),
      64,
      (n) => test.send('ws_test', 'burst.event', { n }, { idempotencyKey: newKey() }),
    );
    // The free endpoint gets the whole burst long before the limited one is through a fifth of it.
    await free.waitForAccepted(500, 30_000);
    expect(limited.accepted.size).toBeLessThan(100);
    await limited.waitForAccepted(80, 30_000);

    const measured = limited.requests.slice(0, 80);
    const seconds = (measured[79].at - measured[0].at) / 1000;
    expect(busiestWindow(measured, 750)).toBeLessThanOrEqual(10);
    expect(79 / seconds).toBeLessThanOrEqual(10.2);
    expect(79 / seconds).toBeGreaterThan(8);
  }, 60_000);

  it('delivers to an ordered endpoint in send order: a failing head holds back only that endpoint', async () => {
    const ordered = await receiver([], (request) => ({
      status: eventNumber(request) === 2 && request.nth <= 2 ? 503 : 200,
    }));
    const unordered = await receiver([], (request) => ({
      status: eventNumber(request) === 2 && request.nth <= 2 ? 503 : 200,
    }));
    const test = await dispatcher();
    await test.createEndpoint({ url: ordered.url, ordered: true });
    await test.createEndpoint({ url: unordered.url });

    for (let n = 0; n < 20; n++) await test.send('ws_test', 'ordered.event', { n }, { idempotencyKey: newKey() });
    await Promise.all([ordered.waitForAccepted(20, 30_000), unordered.waitForAccepted(20, 30_000)]);

    expect(ordered.requests.map(eventNumber)).toEqual([
      0,
      1,
      2,
      2,
      2,
      ...Array.from({ length: 17 }, (_, index) => index + 3),
    ]);
    // The unordered endpoint did not wait for event 2's retries.
    const unorderedOrder = unordered.requests.map(eventNumber);
    expect(unorderedOrder.indexOf(3)).toBeLessThan(unorderedOrder.lastIndexOf(2));
  }, 60_000);
});
