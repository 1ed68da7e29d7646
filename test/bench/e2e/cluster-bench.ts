/**
 * `npm run bench:e2e -- --cluster`: the gateway and billing-sync (the cross-service test mesh: Berth's NATS users,
 * FerretDB, the Stripe stand-in) on one nats-server with R1 streams, then on a three-node JetStream cluster with R3
 * streams and BENCH_E2E_CLUSTER_CONSUMERS (2) billing-sync processes on its durable, in the same run, one after
 * the other. Per topology: events/s end to end (BENCH_E2E_EVENTS fresh signed
 * Stripe events, BENCH_E2E_CONNECTIONS at once, from the first request to the last `processedAt`) and the
 * gateway's p50/p99; on R3 also a paced run (BENCH_E2E_RATE events/s for 16 s) with the WEBHOOKS leader SIGKILLed
 * 2 s in: the p99 and slowest 200 and the 503 share during the election.
 * Results: test/bench/results/e2e-cluster-<timestamp>.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@berth/local-infra/testing';
import { startMesh, type Mesh } from '../../support/mesh';
import { sendBurst, sendPaced, summarize, type Answered } from '../../cluster/stripe-burst';
import { envInt } from '../env-int';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface Throughput {
  topology: string;
  events: number;
  eventsPerSec: number;
  gatewayP50Ms: number;
  gatewayP99Ms: number;
  unavailable: number;
}

async function throughput(
  mesh: Mesh,
  topology: string,
  run: string,
  events: number,
  connections: number,
): Promise<Throughput> {
  const send = (event: object): ReturnType<Mesh['sender']['sendStripe']> => mesh.sender.sendStripe(event);
  const warm = Array.from({ length: 200 }, (_, n) => `evt_bench_${run}_warm_${n}`);
  const ids = Array.from({ length: events }, (_, n) => `evt_bench_${run}_${n}`);
  for (const id of [...warm, ...ids]) mesh.standIn.setCustomer({ id: `cus_${id}`, metadata: {} });
  await sendBurst(send, warm, connections);
  await waitProcessed(mesh, warm);
  const started = Date.now();
  const answers = await sendBurst(send, ids, connections);
  const accepted = answers.filter((answer) => answer.status === 200).map((answer) => answer.eventId);
  const last = await waitProcessed(mesh, accepted);
  const ok = answers.filter((answer) => answer.status === 200).map((answer) => answer.elapsedMs);
  return {
    topology,
    events: accepted.length,
    eventsPerSec: Math.round((accepted.length * 1000) / (last - started)),
    gatewayP50Ms: percentile(ok, 50),
    gatewayP99Ms: percentile(ok, 99),
    unavailable: answers.length - accepted.length,
  };
}

/** Resolves with the latest `processedAt` (ms) once every event of `ids` is processed. */
async function waitProcessed(mesh: Mesh, ids: string[]): Promise<number> {
  const keys = ids.map((id) => `stripe:${id}`);
  await waitFor(() => mesh.inbox.events.countDocuments({ _id: { $in: keys }, processedAt: { $ne: null } }), {
    what: 'every event processed',
    timeoutMs: 300_000,
    intervalMs: 250,
    until: (n) => n === ids.length,
  });
  const [latest] = await mesh.inbox.events
    .find({ _id: { $in: keys } }, { projection: { processedAt: 1 } })
    .sort({ processedAt: -1 })
    .limit(1)
    .toArray();
  return latest.processedAt!.getTime();
}

async function election(mesh: Mesh, run: string, rate: number): Promise<Record<string, number>> {
  const send = (event: object): ReturnType<Mesh['sender']['sendStripe']> => mesh.sender.sendStripe(event);
  const ids = Array.from({ length: rate * 16 }, (_, n) => `evt_bench_${run}_election_${n}`);
  for (const id of ids) mesh.standIn.setCustomer({ id: `cus_${id}`, metadata: {} });
  const leader = await mesh.natsCluster!.streamLeader('WEBHOOKS');
  let killed: Promise<void> | undefined;
  const answers: Answered[] = await sendPaced(send, ids, rate, (count) => {
    if (count === rate * 2) killed = leader.kill();
  });
  await killed;
  const burst = summarize(answers);
  const ok = answers.filter((answer) => answer.status === 200).map((answer) => answer.elapsedMs);
  await leader.restart();
  await mesh.natsCluster!.waitForMetaLeader();
  return {
    offered: burst.offered,
    ok: burst.ok,
    unavailable: burst.unavailable,
    unavailableSharePct: Math.round(burst.unavailableShare * 1000) / 10,
    unavailableSpanMs: burst.unavailableSpanMs,
    p99OkMs: percentile(ok, 99),
    slowestOkMs: burst.slowestOkMs,
  };
}

/** Runs the cluster bench and writes its results. */
export async function runClusterBench(): Promise<void> {
  const events = envInt('BENCH_E2E_EVENTS', 2000, 100, 100_000);
  const connections = envInt('BENCH_E2E_CONNECTIONS', 32, 1, 512);
  const rate = envInt('BENCH_E2E_RATE', 40, 1, 1000);
  const scaledConsumers = envInt('BENCH_E2E_CLUSTER_CONSUMERS', 2, 1, 8);
  const run = Date.now().toString(36);
  const results: Throughput[] = [];
  let electionFigures: Record<string, number> | undefined;
  for (const clusterSize of [undefined, 3]) {
    // R3 with consumers scaled out (BENCH_E2E_CLUSTER_CONSUMERS billing-sync processes on one durable, 2).
    const consumers = clusterSize ? scaledConsumers : 1;
    const topology = clusterSize ? `R3 (3 nodes), billing-sync x${consumers}` : 'R1 (1 node), billing-sync x1';
    console.log(`${topology}: starting the gateway and billing-sync`);
    const mesh = await startMesh({
      name: `bench_cluster_${clusterSize ?? 1}`,
      clusterSize,
      services: ['gateway', 'billing-sync'],
      extraReplicas: { 'billing-sync': consumers - 1 },
    });
    try {
      results.push(await throughput(mesh, topology, `${run}_${clusterSize ?? 1}`, events, connections));
      console.log(JSON.stringify(results.at(-1)));
      if (clusterSize) {
        electionFigures = await election(mesh, `${run}_${clusterSize}`, rate);
        console.log(`election: ${JSON.stringify(electionFigures)}`);
      }
    } finally {
      await mesh.stop();
    }
  }
  const [r1, r3] = results;
  console.log('\n| topology | events | events/s | gateway p50 ms | gateway p99 ms | 503 |');
  console.log('|---|---|---|---|---|---|');
  for (const row of results)
    console.log(
      `| ${row.topology} | ${row.events} | ${row.eventsPerSec} | ${row.gatewayP50Ms} | ${row.gatewayP99Ms} | ${row.unavailable} |`,
    );
  console.log(`\nR3 / R1 events/s: ${(r3.eventsPerSec / r1.eventsPerSec).toFixed(2)}`);
  console.log(`during a WEBHOOKS leader election (R3, ${rate}/s): ${JSON.stringify(electionFigures)}`);
  const dir = join(__dirname, '..', 'results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `e2e-cluster-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(
    file,
    `${JSON.stringify({ cpus: cpus().length, events, connections, rate, results, election: electionFigures }, null, 2)}\n`,
  );
  console.log(`results: ${file}`);
}
