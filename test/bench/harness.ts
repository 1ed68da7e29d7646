/**
 * Load driver for the webhook benchmarks: unique, correctly Stripe-signed requests fired with autocannon (or wrk,
 * see wrk-load.ts) at a gateway on 127.0.0.1, plus peak-RSS sampling of the processes under test.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import Stripe from 'stripe';
import { fireWrk, writeWrkPool, type WrkPool } from './wrk-load';

/** One request body with the headers that go with it. */
export interface SignedRequest {
  body: Buffer;
  headers: Record<string, string>;
}

/** What {@link runLoad} measures: rates and latencies over the timed run, error counts over both runs. */
export interface LoadResult {
  /** Mean of the per-second request counts. */
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses with a status outside 2xx, in warm-up plus timed run. */
  non2xx: number;
  /** Connection errors including timeouts, in warm-up plus timed run. */
  errors: number;
  /** 2xx responses in warm-up plus timed run. */
  ok2xx: number;
  /** Response count per HTTP status, warm-up plus timed run. */
  statusCodes: Record<string, number>;
  warmupRequestsPerSec: number;
  /** Peak VmRSS of the gateway process over warm-up and timed run, in MB. */
  peakRssMb: number;
  /** Peak VmRSS of the backing store process, in MB, when its pid was given. */
  infraPeakRssMb?: number;
  /** CPU time (user + system) the gateway process spent per 1,000 requests of the timed run, in ms. */
  cpuMsPerKRequests: number;
  /** The same for the backing store process, when its pid was given. */
  infraCpuMsPerKRequests?: number;
  /** The same for this process, the load generator: it shares the machine with the target. */
  clientCpuMsPerKRequests: number;
  /** CPU ms per 1,000 requests of the timed run of each process of `processes` (with its descendants). */
  cpuMsPerKByProcess?: Record<string, number>;
  /** Requests signed before the timed run, and requests signed during it because the pool ran out (autocannon). */
  pooled: number;
  signedLive: number;
  /** Requests wrk sent a second time because its pool ran out: duplicates, so the figures are not valid. */
  reused: number;
  /** The load generator used. */
  client: LoadClient;
}

/** Which load generator {@link runLoad} drives. */
export type LoadClient = 'autocannon' | 'wrk';

/** Options for {@link runLoad}. */
export interface LoadOptions {
  /** Endpoint on 127.0.0.1 (anything else is refused). */
  url: string;
  /** Produces a fresh, unique, signed request on every call. */
  makeRequest: () => SignedRequest;
  /** Process whose RSS is sampled (the gateway). */
  pid: number;
  /** Optional second process to sample (Redis, nats-server). */
  infraPid?: number;
  connections: number;
  durationS: number;
  warmupS: number;
  /**
   * Offered requests per second over all connections; unlimited when unset. At a fixed rate below every target's
   * limit, CPU per request compares two builds better than requests/s does on a busy machine.
   */
  rate?: number;
  /** Upper bound on pre-signed requests held in memory; default 300 000 (about 0.5 GB). */
  maxPool?: number;
  /**
   * The load generator: autocannon in this process (default), or wrk in a child process, which takes a fraction of
   * autocannon's CPU per request from the cores the targets share; wrk offers no fixed rate.
   */
  client?: LoadClient;
  /**
   * Every process of the system under test by name, whose CPU (with its descendants') is counted per request;
   * read after the warm-up, when pools have opened their connections (a database backend is a process).
   */
  processes?: () => Promise<Record<string, number>>;
}

const runPrefix = randomBytes(6).toString('hex');
let sequence = 0;

/** A Stripe event id that is unique within a run (counter) and across runs (random prefix). */
export function freshEventId(): string {
  sequence += 1;
  return `evt_${runPrefix}${sequence.toString(36).padStart(12, '0')}`;
}

/** A realistic `customer.subscription.updated` event (about 1.5 KB of JSON). */
export function subscriptionUpdatedEvent(id: string, createdS: number): Record<string, unknown> {
  const periodStart = createdS - 86400;
  const price = {
    id: 'price_1PzR2sLkdIwHu7ixQm3fT9aZ',
    object: 'price',
    active: true,
    currency: 'usd',
    product: 'prod_QrAbCdEfGhIjKl',
    recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' },
    type: 'recurring',
    unit_amount: 4900,
  };
  return {
    id,
    object: 'event',
    api_version: '2025-09-30.clover',
    created: createdS,
    data: {
      object: {
        id: 'sub_1PzR3tLkdIwHu7ixa8K2mNcD',
        object: 'subscription',
        billing_cycle_anchor: periodStart,
        cancel_at: null,
        cancel_at_period_end: false,
        canceled_at: null,
        collection_method: 'charge_automatically',
        created: periodStart - 2592000,
        currency: 'usd',
        customer: 'cus_QrAbC1dEfG2hIj',
        default_payment_method: 'pm_1PzR2rLkdIwHu7ixKk9sQw3e',
        items: {
          object: 'list',
          data: [
            {
              id: 'si_QrAbCdEfGhIjKm',
              object: 'subscription_item',
              created: periodStart,
              current_period_start: periodStart,
              current_period_end: periodStart + 2592000,
              price,
              quantity: 3,
              subscription: 'sub_1PzR3tLkdIwHu7ixa8K2mNcD',
            },
          ],
          has_more: false,
          total_count: 1,
          url: '/v1/subscription_items?subscription=sub_1PzR3tLkdIwHu7ixa8K2mNcD',
        },
        latest_invoice: 'in_1PzR3tLkdIwHu7ixJ7bYc2Vd',
        livemode: false,
        metadata: { plan: 'team', workspace_id: 'ws_8f3a2c' },
        status: 'active',
        trial_end: null,
        trial_start: null,
      },
      previous_attributes: {
        items: { data: [{ id: 'si_QrAbCdEfGhIjKm', quantity: 2 }] },
        metadata: { plan: 'starter' },
      },
    },
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_${id.slice(4)}`, idempotency_key: `${runPrefix}-${createdS}-${id.slice(-8)}` },
    type: 'customer.subscription.updated',
  };
}

/**
 * Returns a request factory: each call builds a new subscription-updated event with a fresh `evt_` id and signs
 * it with `stripe.webhooks.generateTestHeaderString`, exactly as Stripe would sign it for `secret`.
 */
export function stripeRequestFactory(secret: string): () => SignedRequest {
  const stripe = new Stripe('sk_test_bench_unused');
  return () => {
    const payload = JSON.stringify(subscriptionUpdatedEvent(freshEventId(), Math.floor(Date.now() / 1000)));
    const signature = stripe.webhooks.generateTestHeaderString({ payload, secret });
    return {
      body: Buffer.from(payload),
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    };
  };
}

/** CPU seconds (user + system) `pid` has used so far, from /proc; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of a process and its descendants: its own time, the time of children it has reaped (`cutime`,
 * `cstime`), and the time of descendants still running (PostgreSQL's backends, one per client connection).
 */
export function treeCpuSeconds(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      const parent = Number(fields[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process exited while the list was read.
    }
  }
  const total = (id: number): number =>
    cpuSeconds(id) + (children.get(id) ?? []).reduce((sum, child) => sum + total(child), 0);
  return total(pid) + reapedChildrenCpuSeconds(pid);
}

/** CPU seconds of the children `pid` has reaped (`cutime` + `cstime`): a load generator run as a child, once it exited. */
export function reapedChildrenCpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / clockTicksPerSecond;
  } catch {
    return 0;
  }
}

/** USER_HZ: 100 on Linux for every architecture Node runs on. */
const clockTicksPerSecond = 100;

/** Samples VmRSS of each pid every `intervalMs`; `stop()` returns the peak of each in MB (0 if never read). */
export function sampleRss(pids: number[], intervalMs = 200): { stop(): number[] } {
  const peaksKb = pids.map(() => 0);
  const sample = (): void => {
    pids.forEach((pid, i) => {
      try {
        const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
        peaksKb[i] = Math.max(peaksKb[i], kb);
      } catch {
        // process gone
      }
    });
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peaksKb.map((kb) => Math.round((kb / 1024) * 10) / 10);
    },
  };
}

/** What one run of either load generator measured. */
interface Shot {
  total: number;
  requestsPerSec: number;
  /** Requests of the best second (autocannon), or the mean rate (wrk, which reports no seconds). */
  bestSecondRate: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  ok2xx: number;
  statusCodes: Record<string, number>;
  /** Requests sent again because the pool ran out (wrk), or signed on the fly for the same reason (autocannon). */
  beyondPool: number;
}

function autocannonShot(result: autocannon.Result, beyondPool: number): Shot {
  const statusCodes: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[status] = count;
  return {
    total: result.requests.total,
    requestsPerSec: Math.round(result.requests.average),
    bestSecondRate: result.requests.max,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    ok2xx: result['2xx'],
    statusCodes,
    beyondPool,
  };
}

/** One autocannon run taking every request body from `next`; stopped forcibly if it overruns by 30 s. */
async function fire(
  url: string,
  connections: number,
  durationS: number,
  next: () => SignedRequest,
  rate?: number,
): Promise<autocannon.Result> {
  const instance = autocannon({
    url,
    connections,
    overallRate: rate,
    duration: durationS,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const { body, headers } = next();
          return { ...request, body, headers: { ...headers } };
        },
      },
    ],
  });
  const guard = setTimeout(() => instance.stop(), (durationS + 30) * 1000);
  try {
    return await instance;
  } finally {
    clearTimeout(guard);
  }
}

/** The requests of one run, as the chosen client takes them: in memory (autocannon) or in a file (wrk). */
type PreparedPool = { client: 'autocannon'; requests: SignedRequest[] } | { client: 'wrk'; file: WrkPool };

async function preparePool(client: LoadClient, requests: SignedRequest[]): Promise<PreparedPool> {
  return client === 'wrk' ? { client, file: await writeWrkPool(requests) } : { client, requests };
}

/** Sends the requests of `pool` in order with its client, each once while they last. */
async function shoot(options: LoadOptions, durationS: number, pool: PreparedPool): Promise<Shot> {
  if (pool.client === 'wrk') {
    const result = await fireWrk(options.url, options.connections, durationS, pool.file);
    return {
      total: result.requests,
      requestsPerSec: result.requestsPerSec,
      bestSecondRate: result.requestsPerSec,
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      non2xx: result.non2xx,
      errors: result.errors,
      ok2xx: result.requests - result.non2xx,
      statusCodes: result.non2xx > 0 ? { '2xx/3xx': result.requests - result.non2xx, '4xx/5xx': result.non2xx } : {},
      beyondPool: result.reused,
    };
  }
  const { requests } = pool;
  let used = 0;
  let signedLive = 0;
  const result = await fire(
    options.url,
    options.connections,
    durationS,
    () => {
      if (used < requests.length) return requests[used++];
      signedLive += 1;
      return options.makeRequest();
    },
    options.rate,
  );
  return autocannonShot(result, signedLive);
}

/** Requests a warm-up of wrk is given (it cannot sign on the fly): more than this machine has ever served. */
const WRK_WARMUP_REQUESTS_PER_SECOND = 15_000;

/**
 * Warm-up, then a timed run fed from a pool of requests signed beforehand, each used once, so signing does not
 * compete with the target for CPU. The pool is sized from the best warm-up second with 2x headroom (wrk: its mean
 * rate with 2.5x); should it run out, autocannon signs on the fly (counted in `signedLive`) and wrk sends the pool
 * again, duplicates counted in `reused`.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (new URL(options.url).hostname !== '127.0.0.1') throw new Error(`refusing non-loopback target ${options.url}`);
  const client = options.client ?? 'autocannon';
  if (client === 'wrk' && options.rate !== undefined) throw new Error('wrk offers no fixed rate: unset BENCH_RATE');
  const { makeRequest, connections, durationS, warmupS } = options;
  const maxPool = options.maxPool ?? 300000;
  const rss = sampleRss(options.infraPid ? [options.pid, options.infraPid] : [options.pid]);
  try {
    let warmup: Shot | undefined;
    if (warmupS > 0) {
      // autocannon signs its warm-up on the fly; wrk cannot, so it gets more than this machine has ever served.
      const warmupPool = await preparePool(
        client,
        client === 'wrk'
          ? Array.from({ length: Math.min(maxPool, warmupS * WRK_WARMUP_REQUESTS_PER_SECOND) }, makeRequest)
          : [],
      );
      try {
        warmup = await shoot(options, warmupS, warmupPool);
      } finally {
        if (warmupPool.client === 'wrk') await warmupPool.file.dispose();
      }
    }
    const headroom = client === 'wrk' ? 2.5 : 2;
    const expectedRps = warmup ? Math.max(warmup.bestSecondRate, 4000) : 10000;
    const poolSize = Math.min(maxPool, Math.ceil(expectedRps * durationS * headroom) + connections);
    let pool: PreparedPool | undefined = await preparePool(client, Array.from({ length: poolSize }, makeRequest));
    const pids = [options.pid, options.infraPid ?? 0, process.pid];
    const cpuBefore = pids.map(cpuSeconds);
    const reapedBefore = reapedChildrenCpuSeconds(process.pid);
    const named = Object.entries((await options.processes?.()) ?? {});
    const namedBefore = named.map(([, pid]) => treeCpuSeconds(pid));
    const timed = await shoot(options, durationS, pool).finally(async () => {
      if (pool?.client === 'wrk') await pool.file.dispose();
    });
    const served = Math.max(1, timed.total);
    const perK = (seconds: number): number => Math.round((seconds * 1e7) / served) / 10;
    // The load generator is this process and, for wrk, its child: counted once it has exited and been reaped.
    const [cpuMsPerKRequests, infraCpuMsPerKRequests, clientCpuMsPerKRequests] = pids.map((pid, i) =>
      perK(cpuSeconds(pid) - cpuBefore[i] + (pid === process.pid ? reapedChildrenCpuSeconds(pid) - reapedBefore : 0)),
    );
    const cpuMsPerKByProcess = options.processes
      ? Object.fromEntries(
          named.map(([name, pid], i) => [name, Math.round(((treeCpuSeconds(pid) - namedBefore[i]) * 1e6) / served)]),
        )
      : undefined;
    pool = undefined;
    const [peakRssMb, infraPeakRssMb] = rss.stop();
    const statusCodes: Record<string, number> = { ...warmup?.statusCodes };
    for (const [status, count] of Object.entries(timed.statusCodes))
      statusCodes[status] = (statusCodes[status] ?? 0) + count;
    return {
      client,
      requestsPerSec: timed.requestsPerSec,
      p50Ms: timed.p50Ms,
      p99Ms: timed.p99Ms,
      non2xx: timed.non2xx + (warmup?.non2xx ?? 0),
      errors: timed.errors + (warmup?.errors ?? 0),
      ok2xx: timed.ok2xx + (warmup?.ok2xx ?? 0),
      statusCodes,
      warmupRequestsPerSec: warmup?.requestsPerSec ?? 0,
      peakRssMb,
      infraPeakRssMb,
      cpuMsPerKRequests,
      infraCpuMsPerKRequests: options.infraPid ? infraCpuMsPerKRequests : undefined,
      clientCpuMsPerKRequests,
      cpuMsPerKByProcess,
      pooled: poolSize,
      signedLive: client === 'autocannon' ? timed.beyondPool : 0,
      reused: client === 'wrk' ? timed.beyondPool + (warmup?.beyondPool ?? 0) : 0,
    };
  } finally {
    rss.stop();
  }
}
