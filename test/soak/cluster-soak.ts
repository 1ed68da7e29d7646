/**
 * `npm run soak -- --cluster`: the gateway and three billing-sync replicas on a three-node JetStream cluster (R3 streams, Berth's
 * NATS users), under paced Stripe traffic through the gateway, one fault case after the other: SIGKILL of the
 * WEBHOOKS leader, SIGKILL of the meta leader, SIGSTOP of the WEBHOOKS leader for `SOAK_PAUSE_SECONDS` (30), a
 * rolling restart of the three nodes, SIGKILL of one of three billing-sync replicas, two of three nodes down for `SOAK_NO_QUORUM_SECONDS`
 * (20). Each case: `SOAK_RATE` (40) events/s, the fault 2 s in, the provider's retries of every 503, then the ledger
 * (offered, accepted, applied once, missing, twice) and the gateway's 503 share and slowest 200 of the burst.
 * Exit 1 unless every accepted event was applied exactly once. Bounded: each case's burst, at most 120 s of drain.
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from '@berth/local-infra/testing';
import { startMesh, type Mesh } from '../support/mesh';
import {
  caseLedger,
  formatLedger,
  retryUntilAccepted,
  sendPaced,
  summarize,
  type Answered,
  type LedgerRow,
} from '../cluster/stripe-burst';

const env = process.env;
const rate = Number(env.SOAK_RATE ?? 40);
const pauseSeconds = Number(env.SOAK_PAUSE_SECONDS ?? 30);
const noQuorumSeconds = Number(env.SOAK_NO_QUORUM_SECONDS ?? 20);
const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const note = (line: string): void =>
  void process.stdout.write(`[soak --cluster ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface FaultCase {
  name: string;
  /** Seconds of traffic. */
  seconds: number;
  /** Runs 2 s into the burst; resolves when the fault is over (the node back, or left to the end of the case). */
  fault(mesh: Mesh): Promise<void>;
}

const cluster = (mesh: Mesh): NonNullable<Mesh['natsCluster']> => mesh.natsCluster!;

const CASES: FaultCase[] = [
  {
    name: 'SIGKILL WEBHOOKS leader',
    seconds: 16,
    async fault(mesh) {
      const leader = await cluster(mesh).streamLeader('WEBHOOKS');
      await leader.kill();
      await pause(8000);
      await leader.restart();
    },
  },
  {
    name: 'SIGKILL meta leader',
    seconds: 16,
    async fault(mesh) {
      const leader = await cluster(mesh).metaLeader();
      await leader.kill();
      await pause(8000);
      await leader.restart();
    },
  },
  {
    name: `SIGSTOP WEBHOOKS leader ${pauseSeconds} s`,
    seconds: pauseSeconds + 8,
    async fault(mesh) {
      const leader = await cluster(mesh).streamLeader('WEBHOOKS');
      leader.pause();
      await pause(pauseSeconds * 1000);
      leader.resume();
    },
  },
  {
    name: 'rolling restart (SIGTERM, one at a time)',
    seconds: 30,
    async fault(mesh) {
      for (const node of cluster(mesh).nodes) {
        await node.stop();
        await node.restart();
        await cluster(mesh).waitForMetaLeader(30_000);
        await cluster(mesh).streamLeader('WEBHOOKS', 30_000);
      }
    },
  },
  {
    name: 'SIGKILL a billing-sync replica (1 of 3)',
    seconds: 12,
    async fault(mesh) {
      const replica = mesh.replicasOf('billing-sync')[1];
      await replica.kill();
      await pause(2000);
      await replica.start();
    },
  },
  {
    name: `two of three nodes down ${noQuorumSeconds} s`,
    seconds: noQuorumSeconds + 14,
    async fault(mesh) {
      const leader = await cluster(mesh).streamLeader('WEBHOOKS');
      const other = cluster(mesh).nodes.find((node) => node !== leader && node.running)!;
      await Promise.all([leader.kill(), other.kill()]);
      await pause(noQuorumSeconds * 1000);
      await other.restart();
      await leader.restart();
    },
  },
];

/** Runs every case; resolves with the exit code. */
export async function runClusterSoak(): Promise<number> {
  const run = randomUUID().slice(0, 8);
  note(`cases: ${CASES.map((c) => c.name).join('; ')}; ${rate} events/s`);
  const mesh = await startMesh({
    name: 'soak_cluster',
    clusterSize: 3,
    services: ['gateway', 'billing-sync'],
    extraReplicas: { 'billing-sync': 2 },
    keepLogs: env.SOAK_KEEP_DATA === '1',
  });
  const rows: LedgerRow[] = [];
  const figures: string[] = [];
  let passed = true;
  try {
    note(`mesh up: gateway ${mesh.gatewayUrl}, NATS ${mesh.natsCluster!.urls.join(',')}`);
    const send = (event: object): ReturnType<Mesh['sender']['sendStripe']> => mesh.sender.sendStripe(event);
    // Applied by any of the three billing-sync replicas, across their restarts.
    const processedCount = (eventId: string): number =>
      mesh
        .replicasOf('billing-sync')
        .reduce((sum, replica) => sum + replica.logged('Webhook event processed', { eventId }).length, 0);
    for (const [index, faultCase] of CASES.entries()) {
      const ids = Array.from({ length: faultCase.seconds * rate }, (_, n) => `evt_soak_${run}_${index}_${n}`);
      for (const id of ids) mesh.standIn.setCustomer({ id: `cus_${id}`, metadata: {} });
      note(`${faultCase.name}: ${ids.length} events over ${faultCase.seconds} s`);
      let fault: Promise<void> | undefined;
      const answers = await sendPaced(send, ids, rate, (count) => {
        if (count === rate * 2)
          fault = faultCase.fault(mesh).catch((error: unknown) => note(`fault failed: ${String(error)}`));
      });
      await fault;
      const burst = summarize(answers);
      const retries = await retryUntilAccepted(send, answers, Date.now() + 120_000);
      const all: Answered[] = [...answers, ...retries];
      await cluster(mesh).waitForMetaLeader(60_000);
      await waitFor(
        () =>
          mesh.inbox.events.countDocuments({
            _id: { $in: ids.map((id) => `stripe:${id}`) },
            processedAt: { $ne: null },
          }),
        {
          what: `${faultCase.name}: every event processed`,
          timeoutMs: 120_000,
          intervalMs: 500,
          until: (n) => n === ids.length,
        },
      ).catch((error: unknown) => note(String(error)));
      const ledger = await caseLedger(faultCase.name, mesh.db, ids, all, processedCount);
      rows.push(ledger);
      if (ledger.missing > 0 || ledger.twice > 0 || ledger.accepted !== ledger.offered) passed = false;
      const line = `${faultCase.name}: 503 ${burst.unavailable}/${burst.offered} (${(burst.unavailableShare * 100).toFixed(1)} %) over ${(burst.unavailableSpanMs / 1000).toFixed(1)} s, other ${burst.other}, slowest 200 ${burst.slowestOkMs} ms; provider retries ${retries.length}`;
      figures.push(line);
      note(line);
    }
  } catch (error) {
    passed = false;
    note(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await mesh.stop().catch((error: unknown) => {
      passed = false;
      note(String(error));
    });
  }
  process.stdout.write(
    `\nFault ledger (three-node JetStream cluster, R3)\n${formatLedger(rows)}\n\n${figures.join('\n')}\n`,
  );
  process.stdout.write(`\n${passed ? 'PASSED' : 'FAILED'}\n`);
  return passed ? 0 : 1;
}
