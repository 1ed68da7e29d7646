import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  defaultToolsBinDir,
  getFreePort,
  spawnManaged,
  startNatsServer,
  type ManagedProcess,
} from '@berth/local-infra';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { SignedRequest } from './harness';
import { trackChild } from './lifecycle';

/** A running webhook gateway under test, listening on 127.0.0.1. */
export interface BenchTarget {
  /** Full URL of its Stripe webhook endpoint. */
  url: string;
  /** Gateway process id; its RSS is sampled during the run. */
  pid: number;
  /** Process id of its backing store (Redis, nats-server); sampled too when set. */
  infraPid?: number;
  /** How many events it durably accepted (queued jobs, stored messages), as a sanity check; optional. */
  countAccepted?(): Promise<number>;
  /** Signs the requests it is sent; unset: the benchmark's own Stripe events for the shared secret. */
  makeRequest?: () => SignedRequest;
  /** Every process of the system by name, when more than the gateway and its store: their CPU is reported. */
  processes?(): Promise<Record<string, number>>;
  /** Stops the gateway and everything started for it; resolves once they have exited. */
  stop(): Promise<void>;
}

const repoRoot = resolve(__dirname, '..', '..');

/** Entry point of Berth's gateway service (written separately; may not exist yet); BENCH_BERTH_MAIN overrides it. */
export const berthGatewayMain = process.env.BENCH_BERTH_MAIN ?? join(repoRoot, 'services', 'gateway', 'src', 'main.ts');

/** Thrown by {@link startBerthGatewayForBench} when services/gateway/src/main.ts does not exist. */
export class BerthGatewayMissingError extends Error {
  constructor() {
    super(`Berth's gateway is missing (${berthGatewayMain} does not exist)`);
  }
}

/** Extra Node flags for the gateway process (BENCH_GATEWAY_NODE_ARGS, space-separated), e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
function gatewayNodeArgs(): string[] {
  return (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
}

/** Polls `url` until it answers 200; fails when the process exits or `timeoutMs` passes. */
async function waitForHttpOk(url: string, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => (exited = true));
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (exited) throw new Error(`gateway exited before ${url} answered 200`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.status === 200) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = String(error);
    }
    await sleep(100);
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms (last: ${last})`);
}

/**
 * Starts Berth's gateway for the ingest benchmark: a fresh nats-server (JetStream, fsync always) from
 * `@berth/local-infra`, then `node -r ./deploy/runtime/ts-hook.js services/gateway/src/main.ts` on a free port with
 * PORT, HEALTH_PORT (another free port), NATS_URL, STRIPE_WEBHOOK_SECRET, LOG_LEVEL=warn and NODE_ENV=production (no
 * Clerk secret), HOST=127.0.0.1 and WEBHOOK_RATE_LIMIT_PER_MINUTE=0 (the peer has no per-IP limit, and one client IP
 * would hit the default 600/min), and waits until GET /readyz on the health port answers 200. The Stripe path defaults to /webhooks/stripe (override: BENCH_BERTH_PATH).
 */
export async function startBerthGatewayForBench(secret: string): Promise<BenchTarget> {
  if (!existsSync(berthGatewayMain)) throw new BerthGatewayMissingError();
  const nats = await startNatsServer({ binDir: defaultToolsBinDir(process.env.BERTH_TOOLS_DIR) });
  trackChild(nats.process.child);
  let gateway: ManagedProcess | undefined;
  try {
    const port = await getFreePort('127.0.0.1');
    const healthPort = await getFreePort('127.0.0.1');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HEALTH_PORT: String(healthPort),
      HOST: '127.0.0.1',
      NATS_URL: nats.url,
      STRIPE_WEBHOOK_SECRET: secret,
      WEBHOOK_STORE_ONLY_PROVIDERS: 'stripe',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      WEBHOOK_RATE_LIMIT_PER_MINUTE: '0',
    };
    delete env.CLERK_WEBHOOK_SIGNING_SECRET;
    gateway = spawnManaged({
      command: process.execPath,
      args: [...gatewayNodeArgs(), '-r', join(repoRoot, 'deploy', 'runtime', 'ts-hook.js'), berthGatewayMain],
      env,
    });
    trackChild(gateway.child);
    await waitForHttpOk(`http://127.0.0.1:${healthPort}/readyz`, gateway, 60000);
    const proc = gateway;
    return {
      url: `http://127.0.0.1:${port}${process.env.BENCH_BERTH_PATH ?? '/webhooks/stripe'}`,
      pid: proc.child.pid ?? 0,
      infraPid: nats.process.child.pid,
      countAccepted: () => countStoredEvents(nats.url),
      async stop() {
        await proc.stop(5000);
        await nats.stop();
      },
    };
  } catch (error) {
    await gateway?.stop(1000);
    await nats.stop();
    throw error;
  }
}

/**
 * Events stored in stream `WEBHOOKS`: one per message, or `Berth-Batch-Size` for a batch message of the gateway's
 * group commit. Read with an ordered consumer, headers only.
 */
async function countStoredEvents(natsUrl: string): Promise<number> {
  const nc = await connect({ servers: natsUrl });
  try {
    const total = (await (await jetstreamManager(nc)).streams.info('WEBHOOKS')).state.messages;
    const consumer = await jetstream(nc).consumers.get('WEBHOOKS', { headers_only: true });
    let events = 0;
    for (let read = 0; read < total;) {
      const batch = await consumer.fetch({ max_messages: Math.min(1000, total - read), expires: 5000 });
      let received = 0;
      for await (const msg of batch) {
        received += 1;
        events += Number(msg.headers?.get('Berth-Batch-Size') || '1');
      }
      if (received === 0) break;
      read += received;
    }
    return events;
  } finally {
    await nc.close();
  }
}
