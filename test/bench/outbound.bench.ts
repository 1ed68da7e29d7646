/**
 * `npm run bench:outbound`: outbound webhook deliveries per second to 20 fast loopback receivers, every request
 * signed (Standard Webhooks, HMAC-SHA256), and the latency from the `send` call to the receipt, p50 and p99. The
 * dispatcher runs as its own process (as in production) against a nats-server (`sync_interval: always`) and a
 * FerretDB of its own; receivers and sender run here. Each round sends a burst of events to a fresh workspace;
 * the table shows every round and the medians.
 *
 * Two modes: a burst (`--rate 0`, the default: every event sent at once, `--window` at a time) measures throughput,
 * its latency is mostly queueing; a paced run (`--rate <events/s>` below capacity) measures the latency of one
 * delivery through the system.
 *
 * Options: --rounds <n> (3), --events <n> per round (1000), --endpoints <n> (20), --window <n> concurrent sends (64),
 * --rate <events/s> (0: burst).
 */
import { waitFor } from '@berth/local-infra/testing';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { startFerretDb, startNatsServer } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, isNotFound } from '@berth/messaging';
import {
  announceEndpointChange,
  createEndpoint,
  createOutboundSender,
  endpointConsumerName,
  outboundCollections,
  OUTBOUND_DELIVERIES_STREAM,
} from '@berth/outbound';
import { toolsBinDir } from '../support/mesh';
import { startServiceProcess } from '../support/service-process';
import { mapWithConcurrency } from '../support/wait-for';
import { WebhookReceiver } from '../support/webhook-receiver';
import { median, table } from './stats';

interface RoundResult {
  deliveriesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  sendSeconds: number;
  duplicates: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      events: { type: 'string', default: '1000' },
      endpoints: { type: 'string', default: '20' },
      window: { type: 'string', default: '64' },
      rate: { type: 'string', default: '0' },
    },
  });
  const rounds = Number(values.rounds);
  const events = Number(values.events);
  const endpointCount = Number(values.endpoints);
  const window = Number(values.window);
  const rate = Number(values.rate);
  const logger = createLogger({ service: 'bench', level: 'warn' });
  const [nats, ferret] = await Promise.all([
    startNatsServer({ binDir: toolsBinDir }),
    startFerretDb({ binDir: toolsBinDir }),
  ]);
  const mongo = await MongoClient.connect(ferret.url);
  const messaging = await connectMessaging({ servers: nats.url, name: 'bench-outbound', logger });
  const db = mongo.db(`bench_outbound_${randomBytes(3).toString('hex')}`);
  const collections = outboundCollections(db);
  const dispatcher = await startServiceProcess({
    service: 'dispatcher',
    readyLine: /"msg":"Dispatcher ready"/,
    timeoutMs: 60_000,
    env: {
      NATS_URL: nats.url,
      MONGO_URL: ferret.url,
      MONGO_DB: db.databaseName,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DISPATCHER_API_TOKEN: 'outbound-bench-token-0123456789abcdef',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8',
      OUTBOUND_ALLOWED_PORTS: '1-65535',
      NODE_ENV: 'production',
    },
  });
  const send = createOutboundSender({ js: messaging.js });
  const results: RoundResult[] = [];
  const receivers: WebhookReceiver[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      const workspaceId = `ws_bench_${round}`;
      const latencies: number[] = [];
      const roundReceivers: WebhookReceiver[] = [];
      for (let index = 0; index < endpointCount; index++) {
        const receiver = await new WebhookReceiver([], (request) => {
          latencies.push(request.at - (JSON.parse(request.body) as { data: { t: number } }).data.t);
          return { status: 204 };
        }).start();
        roundReceivers.push(receiver);
        const { endpoint } = await createEndpoint(
          { collections, onChanged: (id) => announceEndpointChange(messaging.nc, id) },
          { workspaceId, url: receiver.url },
        );
        await waitFor(
          () =>
            messaging.jsm.consumers.info(OUTBOUND_DELIVERIES_STREAM, endpointConsumerName(endpoint.id)).then(
              () => true,
              (error: unknown) => (isNotFound(error) ? false : Promise.reject(error)),
            ),
          { what: `the lane of ${endpoint.id}`, timeoutMs: 30_000, intervalMs: 100, until: Boolean },
        );
      }
      receivers.push(...roundReceivers);
      const started = performance.now();
      const sendOne = (n: number) =>
        send(workspaceId, 'bench.event', { n, t: performance.now() }, { idempotencyKey: `${workspaceId}-${n}` });
      if (rate > 0) {
        const sends: Promise<unknown>[] = [];
        for (let n = 0; n < events; n++) {
          const due = started + (n * 1000) / rate;
          if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
          sends.push(sendOne(n));
        }
        await Promise.all(sends);
      } else {
        await mapWithConcurrency(
          Array.from({ length: events }, (_, n) => n),
          window,
          sendOne,
        );
      }
      const sendSeconds = (performance.now() - started) / 1000;
      await Promise.all(roundReceivers.map((receiver) => receiver.waitForAccepted(events, 600_000)));
      const last = Math.max(...roundReceivers.map((receiver) => receiver.requests.at(-1)?.at ?? 0));
      const sorted = [...latencies].sort((a, b) => a - b);
      const raw = roundReceivers.reduce((sum, receiver) => sum + receiver.requests.length, 0);
      const result = {
        deliveriesPerSec: Math.round((events * endpointCount) / ((last - started) / 1000)),
        p50Ms: Math.round(percentile(sorted, 50)),
        p99Ms: Math.round(percentile(sorted, 99)),
        sendSeconds: Number(sendSeconds.toFixed(2)),
        duplicates: raw - events * endpointCount,
      };
      results.push(result);
      process.stdout.write(`round ${round}: ${JSON.stringify(result)}\n`);
    }
  } finally {
    await dispatcher.stop();
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await messaging.close();
    await mongo.close();
    await Promise.all([ferret.stop(), nats.stop()]);
  }
  const mode =
    rate > 0
      ? `paced at ${rate} events/s (${rate * endpointCount} deliveries/s offered)`
      : `a burst, ${window} concurrent sends`;
  process.stdout.write(
    `\n${events} events x ${endpointCount} endpoints per round, ${mode}, signed deliveries to loopback receivers\n\n`,
  );
  process.stdout.write(
    `${table(
      ['round', 'deliveries/s', 'send→receipt p50 ms', 'p99 ms', 'send burst s', 'duplicates'],
      [
        ...results.map((result, index) => [
          String(index + 1),
          result.deliveriesPerSec,
          result.p50Ms,
          result.p99Ms,
          result.sendSeconds,
          result.duplicates,
        ]),
        [
          'median',
          median(results.map((r) => r.deliveriesPerSec)),
          median(results.map((r) => r.p50Ms)),
          median(results.map((r) => r.p99Ms)),
          median(results.map((r) => r.sendSeconds)),
          median(results.map((r) => r.duplicates)),
        ],
      ],
    )}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:outbound failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
