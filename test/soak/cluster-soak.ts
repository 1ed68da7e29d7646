/**
 * `npm run soak -- --cluster`: the mesh of `BERTH_NATS_CLUSTER=3 npm start` (three nats-servers with Berth's users,
 * every stream and bucket R3) with every service and `SOAK_CLUSTER_SCALE` replicas of each consumer service
 * (billing-sync, identity-sync, app-worker, dispatcher ×2; the scheduler's two), under traffic of every kind, one
 * fault case after the other:
 * SIGKILL of the WEBHOOKS leader, of the JOBS leader, of the meta leader; SIGSTOP for `SOAK_PAUSE_SECONDS` (30) of
 * the node holding the gateway's connection, made the WEBHOOKS leader first; a rolling restart of the three nodes;
 * SIGKILL of one replica of each consumer service (and of a scheduler); two of three nodes down for
 * `SOAK_NO_QUORUM_SECONDS` (20).
 *
 * Each case: a paced Stripe burst of `SOAK_RATE` (40) events/s through the gateway (every 503 sent again, as a
 * provider does), and every `SOAK_ROUND_MS` (500) one of each other kind: a Clerk event, a GitHub delivery (the
 * `github` preset of `WEBHOOK_PROVIDERS`, handled by the app-worker), a job added with the jobs producer, an outbound
 * event sent through the dispatcher to a loopback receiver; the soak's cron ticks every 10 s all along. The fault
 * comes 2 s in. Then the case drains (at most `SOAK_DRAIN_SECONDS`, 180) and its ledger is read, kind by kind:
 * offered, accepted, applied once, missing, twice (webhooks: the inbox row, the handler's effect and the
 * "Webhook event processed" lines of every replica; jobs: one summary per workspace; outbound: distinct webhook-ids
 * at the receiver; cron: ticks stored, stored twice), the gateway's 503 share and slowest 200 of the burst, and
 * every service's and replica's /readyz. Exit 1 unless every accepted item was applied exactly once, no tick was
 * stored twice and every service was ready after every case.
 *
 * `SOAK_CASES` (a comma list of case numbers, 1 to 7) runs some of them. Logs of the mesh go to `<data>/mesh.log`,
 * kept when the soak fails or `SOAK_KEEP_DATA=1`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsClusterHandle, NatsClusterNode } from '@berth/local-infra';
import { waitFor } from '@berth/local-infra/testing';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { GATEWAY_NATS_CONNECTION_NAME } from '../../services/gateway/src/run-gateway';
import { readConsumerLag, readServiceHealth } from '../../services/cli/src/commands/status/read-status';
import { startLocalMesh, type LocalMeshHandle } from '../../deploy/local/local-mesh';
import { localSecrets } from '../../deploy/local/local-secrets';
import { WebhookReceiver } from '../support/webhook-receiver';
import { WebhookSender } from '../support/webhook-senders';
import { retryUntilAccepted, sendPaced, stripeEvent, summarize, type Answered } from '../cluster/stripe-burst';
import { CronTickCounter, registerSoakCron } from './cron-ticks';
import { readRows, rowFailures, waitForEffects, type KindLedgers, type LedgerRow } from './ledger';
import { createReceiverEndpoint, MeshLog, soakMeshEnv, waitUntilReady } from './soak-mesh';
import { createSoakWorkspaces, Traffic, type TrafficLedger } from './traffic';

const env = process.env;
const rate = Number(env.SOAK_RATE ?? 40);
const roundMs = Number(env.SOAK_ROUND_MS ?? 500);
const pauseSeconds = Number(env.SOAK_PAUSE_SECONDS ?? 30);
const noQuorumSeconds = Number(env.SOAK_NO_QUORUM_SECONDS ?? 20);
const drainSeconds = Number(env.SOAK_DRAIN_SECONDS ?? 180);
const scale = env.SOAK_CLUSTER_SCALE ?? 'billing-sync=2,identity-sync=2,app-worker=2,dispatcher=2';
/** The replica of each consumer service the "SIGKILL one replica of each" case kills (the supervisor restarts it). */
const KILLED_REPLICAS = ['billing-sync-2', 'identity-sync-2', 'app-worker-2', 'dispatcher-2', 'scheduler-1'];

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const note = (line: string): void =>
  void process.stdout.write(`[soak --cluster ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

interface FaultCase {
  name: string;
  /** Seconds of traffic. */
  seconds: number;
  /** Runs 2 s into the burst; resolves when the fault is over (the node back, or left to the end of the case). */
  fault(mesh: LocalMeshHandle, cluster: NatsClusterHandle, messaging: Messaging): Promise<void>;
}

/** The node holding the client connection named `name`, as each node's `/connz` lists its clients. */
async function nodeServing(cluster: NatsClusterHandle, name: string): Promise<NatsClusterNode> {
  for (const node of cluster.nodes) {
    if (!node.running || node.server.monitoringUrl === undefined) continue;
    const connz = (await (await fetch(`${node.server.monitoringUrl}/connz?limit=4096`)).json()) as {
      connections?: { name?: string }[];
    };
    if (connz.connections?.some((connection) => connection.name === name)) return node;
  }
  throw new Error(`no node holds a connection named ${name}`);
}

/** Hands `stream`'s leadership to `node` (a stepdown with JetStream's preferred placement); resolves once it leads. */
async function moveLeader(messaging: Messaging, cluster: NatsClusterHandle, stream: string, node: NatsClusterNode) {
  if ((await cluster.streamLeader(stream)).name === node.name) return;
  const reply = await messaging.nc.request(
    `$JS.API.STREAM.LEADER.STEPDOWN.${stream}`,
    JSON.stringify({ placement: { preferred: node.name } }),
    { timeout: 10_000 },
  );
  const answer = reply.json<{ success?: boolean; error?: { description?: string } }>();
  if (!answer.success) throw new Error(`${stream} stepdown to ${node.name}: ${answer.error?.description ?? 'refused'}`);
  await waitFor(() => cluster.streamLeader(stream, 20_000), {
    what: `${node.name} to lead ${stream}`,
    timeoutMs: 20_000,
    intervalMs: 250,
    until: (leader) => leader.name === node.name,
  });
}

/**
 * What `node` leads now (the meta group, WEBHOOKS, JOBS): on three nodes one often leads several, and a case's 503
 * share depends on whether the killed node led WEBHOOKS.
 */
async function leads(cluster: NatsClusterHandle, node: string): Promise<string> {
  const led: string[] = [];
  if ((await cluster.metaLeader().catch(() => undefined))?.name === node) led.push('meta leader');
  for (const stream of ['WEBHOOKS', 'JOBS'])
    if ((await cluster.streamLeader(stream).catch(() => undefined))?.name === node) led.push(`leads ${stream}`);
  return led.join(', ') || 'leads none of them';
}

const killLeaderOf = (stream: string): FaultCase['fault'] =>
  async function killLeader(_mesh, cluster) {
    const leader = await cluster.streamLeader(stream);
    note(`  SIGKILL ${leader.name} (${await leads(cluster, leader.name)})`);
    await leader.kill();
    // How long the node stays dead: the fault's length, not a wait for state.
    await pause(8000);
    await leader.restart();
  };

/**
 * Resolves true once `stream`'s leader sees every follower current (a restarted node has caught up), as the leader
 * itself answers the stream's info; false after `timeoutMs`. Under load the info of `JOBS` was seen naming its
 * leader and no replicas at all for a minute, so this bounds the rollout's wait rather than failing it.
 */
async function caughtUp(jsm: JetStreamManager, size: number, stream: string, timeoutMs: number): Promise<boolean> {
  return waitFor(() => jsm.streams.info(stream).then((info) => info.cluster), {
    what: `${stream}'s leader to see every follower current`,
    timeoutMs,
    intervalMs: 250,
    until: (cluster) =>
      Boolean(cluster?.leader) &&
      cluster!.replicas?.length === size - 1 &&
      cluster!.replicas.every((peer) => peer.current && !peer.offline),
  }).then(
    () => true,
    () => false,
  );
}

const CASES: FaultCase[] = [
  { name: 'SIGKILL WEBHOOKS leader', seconds: 20, fault: killLeaderOf('WEBHOOKS') },
  { name: 'SIGKILL JOBS leader', seconds: 20, fault: killLeaderOf('JOBS') },
  {
    name: 'SIGKILL meta leader',
    seconds: 20,
    async fault(_mesh, cluster) {
      const leader = await cluster.metaLeader();
      note(`  SIGKILL ${leader.name} (${await leads(cluster, leader.name)})`);
      await leader.kill();
      await pause(8000);
      await leader.restart();
    },
  },
  {
    name: `SIGSTOP a node ${pauseSeconds} s`,
    seconds: pauseSeconds + 10,
    async fault(_mesh, cluster, messaging) {
      // The worst node to freeze for the gateway: the one its connection is on (the TCP connection stays open, and
      // only unanswered pings tell), made the WEBHOOKS leader first (every write waits for an election too).
      const node = await nodeServing(cluster, GATEWAY_NATS_CONNECTION_NAME);
      await moveLeader(messaging, cluster, 'WEBHOOKS', node);
      note(`  SIGSTOP ${node.name} (holds the gateway's connection; ${await leads(cluster, node.name)})`);
      node.pause();
      await pause(pauseSeconds * 1000);
      node.resume();
      note(`  SIGCONT ${node.name}`);
    },
  },
  {
    name: 'rolling restart (SIGTERM, one at a time)',
    seconds: 60,
    async fault(_mesh, cluster, { jsm }) {
      for (const node of cluster.nodes) {
        note(`  restart ${node.name}`);
        await node.stop();
        await node.restart();
        // As a StatefulSet's rollout waits for readiness: the next node goes once this one is back in the cluster
        // and, as far as the leaders tell, caught up.
        await cluster.waitForMetaLeader(60_000);
        const current: string[] = [];
        for (const stream of ['WEBHOOKS', 'JOBS']) {
          await cluster.streamLeader(stream, 60_000);
          if (await caughtUp(jsm, cluster.nodes.length, stream, 20_000)) current.push(stream);
        }
        note(`  ${node.name} back; followers seen current by the leader of: ${current.join(', ') || 'none'}`);
        // Each step of the rollout runs under traffic for a while: the rollout's pace, not a wait for state.
        await pause(5000);
      }
    },
  },
  {
    name: 'SIGKILL one replica of each consumer service',
    seconds: 20,
    async fault(mesh) {
      for (const name of KILLED_REPLICAS) {
        const pid = mesh.services.pidOf(name);
        if (!pid) throw new Error(`${name} is not running`);
        process.kill(pid, 'SIGKILL');
      }
      note(`  SIGKILL ${KILLED_REPLICAS.join(', ')} (the supervisor restarts each)`);
    },
  },
  {
    name: `two of three nodes down ${noQuorumSeconds} s`,
    seconds: noQuorumSeconds + 15,
    async fault(_mesh, cluster) {
      const leader = await cluster.streamLeader('WEBHOOKS');
      const other = cluster.nodes.find((node) => node !== leader && node.running)!;
      note(`  SIGKILL ${leader.name} and ${other.name}`);
      await Promise.all([leader.kill(), other.kill()]);
      await pause(noQuorumSeconds * 1000);
      await other.restart();
      await leader.restart();
    },
  },
];

/** One case's result. */
interface CaseResult {
  name: string;
  run: string;
  ledgers: KindLedgers;
  /** Accepted items still without effect once every case had run (a late effect, or lost for good). */
  missingAtEnd?: number;
  rows: LedgerRow[];
  ticks: { stored: number; storedTwice: number };
  burst: string;
  /** "Webhook event processed" lines counted for the case's accepted events, per provider: the twice check's input. */
  processedLines: string;
  drainedInSeconds: number | null;
  notReady: string[];
  failures: string[];
}

/** Counts "Webhook event processed" per event id from the mesh's output (`[service] {json}` lines). */
class ProcessedLines {
  private readonly counts = new Map<string, number>();

  read(line: string): void {
    if (!line.includes('"Webhook event processed"')) return;
    try {
      const fields = JSON.parse(line.slice(line.indexOf('{'))) as { eventId?: string };
      if (fields.eventId) this.counts.set(fields.eventId, (this.counts.get(fields.eventId) ?? 0) + 1);
    } catch {
      // Not a JSON line of a service.
    }
  }

  count = (eventId: string): number => this.counts.get(eventId) ?? 0;
}

/** Runs every case (or `SOAK_CASES`); resolves with the exit code. */
export async function runClusterSoak(): Promise<number> {
  const run = Date.now().toString(36);
  const chosen = env.SOAK_CASES ? env.SOAK_CASES.split(',').map((n) => CASES[Number(n) - 1]) : CASES;
  const dataDir = await mkdtemp(join(tmpdir(), 'berth-soak-cluster-'));
  const meshLog = new MeshLog(join(dataDir, 'mesh.log'));
  const processedLines = new ProcessedLines();
  const logger = createLogger({ service: 'soak', level: 'error' });
  note(
    `cases: ${chosen.map((c) => c.name).join('; ')}; Stripe ${rate}/s, a round of the other kinds every ${roundMs} ms; ${scale}; data and logs in ${dataDir}`,
  );
  const githubSecret = `gh-soak-${randomBytes(16).toString('hex')}`;
  const receiver = await new WebhookReceiver().start();
  const results: CaseResult[] = [];
  const failures: string[] = [];
  let mesh: LocalMeshHandle | undefined;
  try {
    mesh = await startLocalMesh({
      env: soakMeshEnv(receiver.url, {
        BERTH_NATS_CLUSTER: '3',
        BERTH_SCALE: scale,
        // The "processed" lines are info lines: they tell an event applied twice (see ProcessedLines).
        LOG_LEVEL: env.SOAK_LOG_LEVEL ?? 'info',
        WEBHOOK_PROVIDERS: JSON.stringify([{ name: 'github', preset: 'github', secrets: [githubSecret] }]),
      }),
      dataDir,
      freePorts: true,
      supervisor: { initialBackoffMs: 500, maxBackoffMs: 5000 },
      write: (line) => {
        processedLines.read(line);
        meshLog.write(line);
      },
    });
    const started = mesh;
    const cluster = started.natsCluster!;
    note(
      `mesh up: gateway ${started.mesh.gatewayUrl}, NATS ${cluster.urls.join(',')}, FerretDB ${started.mesh.mongoUrl}`,
    );
    await waitUntilReady(started, 300_000);
    note(`ready: ${started.mesh.health.map((target) => target.name).join(', ')}`);

    const mongo = await MongoClient.connect(started.mesh.mongoUrl);
    const db = mongo.db(started.mesh.mongoDb);
    const messaging = await connectMessaging({ servers: started.mesh.natsUrl, name: 'soak', logger });
    const streams = (await messaging.jsm.streams.list().next()).map(
      (info) => `${info.config.name} R${info.config.num_replicas}`,
    );
    note(`streams: ${streams.join(', ')}`);
    const endpoint = await createReceiverEndpoint(started, receiver.url, run);
    const ticks = await CronTickCounter.start(messaging, logger, run);
    await registerSoakCron(messaging, logger, run);
    const secrets = localSecrets(join(dataDir, 'local-secrets.json'));
    const webhookSecrets = { stripe: secrets.STRIPE_WEBHOOK_SECRET, clerk: secrets.CLERK_WEBHOOK_SIGNING_SECRET };
    const sender = new WebhookSender(started.mesh.gatewayUrl, webhookSecrets);
    // The stand-in of `npm start` knows one customer: every burst event names it ("nothing to sync").
    const sendStripe = (event: object): ReturnType<WebhookSender['sendStripe']> =>
      sender.sendStripe(stripeEvent((event as { id: string }).id, 'cus_demo'));

    for (const [index, faultCase] of chosen.entries()) {
      const caseRun = `${run}c${CASES.indexOf(faultCase) + 1}`;
      const rounds = Math.ceil((faultCase.seconds * 1000) / roundMs);
      await createSoakWorkspaces(db, caseRun, rounds);
      const caseEnds = Date.now() + faultCase.seconds * 1000;
      const traffic = new Traffic({
        gatewayUrl: started.mesh.gatewayUrl,
        secrets: webhookSecrets,
        messaging,
        logger,
        run: caseRun,
        retryUntil: () => caseEnds + 120_000,
        outbound: { workspaceId: endpoint.workspaceId, eventType: 'soak.event' },
        github: { secret: githubSecret },
        withoutStripe: true,
      });
      const ticksBefore = new Set(ticks.stored.keys());
      const ids = Array.from({ length: faultCase.seconds * rate }, (_, n) => `evt_soak_${caseRun}_${n}`);
      note(
        `case ${index + 1}/${chosen.length} ${faultCase.name}: ${ids.length} Stripe events and ${rounds} rounds over ${faultCase.seconds} s`,
      );
      let fault: Promise<void> | undefined;
      let faultFailed: string | undefined;
      const roundsDone = (async () => {
        for (let round = 0; round < rounds && Date.now() < caseEnds; round++) {
          traffic.offerRound();
          await pause(roundMs);
        }
      })();
      const answers = await sendPaced(sendStripe, ids, rate, (count) => {
        if (count === rate * 2)
          fault = faultCase.fault(started, cluster, messaging).catch((error: unknown) => {
            faultFailed = String(error);
            note(`  fault failed: ${faultFailed}`);
          });
      });
      await roundsDone;
      await fault;
      const burst = summarize(answers);
      const retries = await retryUntilAccepted(sendStripe, answers, Date.now() + 120_000);
      await traffic.settle();
      const all: Answered[] = [...answers, ...retries];
      const stripe: TrafficLedger = {
        offered: ids.length,
        accepted: new Set(all.filter((answer) => answer.status === 200).map((answer) => answer.eventId)).size,
        retried: retries.length,
        duplicates: 0,
        ids: [...new Set(all.filter((answer) => answer.status === 200).map((answer) => answer.eventId))],
      };
      const ledgers = {
        stripe,
        clerk: traffic.clerk,
        github: traffic.github,
        jobs: traffic.jobs,
        outbound: traffic.outbound,
      };
      await cluster.waitForMetaLeader(60_000).catch((error: unknown) => note(`  ${String(error)}`));
      const { rows, drainedInSeconds } = await waitForEffects({
        db,
        receiver,
        run: caseRun,
        ledgers,
        processedCount: processedLines.count,
        drainEnds: Date.now() + drainSeconds * 1000,
        consumerLag: () => readConsumerLag(messaging),
      });
      const missingJobs = rows.find((r) => r.kind === 'jobs')?.missing ?? [];
      if (traffic.jobsDeduplicated.length > 0)
        note(
          `  jobs: ${traffic.jobsDeduplicated.length} adds answered "deduplicated" after an earlier add of the same job failed; ${missingJobs.filter((id) => traffic.jobsDeduplicated.includes(id)).length} of the ${missingJobs.length} missing jobs among them`,
        );
      if (rows.some((r) => r.missing.length > 0)) {
        // What the consumers hold when something is missing: undelivered, unacked, and whether anyone still pulls.
        const lag = await readConsumerLag(messaging).catch(() => []);
        for (const consumer of lag.filter((entry) => entry.lag > 0 && !entry.consumer.startsWith('soak-')))
          note(
            `  ${consumer.stream}/${consumer.consumer}: ${consumer.pending} pending, ${consumer.ackPending} unacked, ${consumer.redelivered} redelivered, ${consumer.waitingPulls} pulls waiting`,
          );
      }
      const health = await waitUntilReady(started, 120_000).catch(() => readServiceHealth(started.mesh.health));
      const notReady = health
        .filter((service) => service.state !== 'ready')
        .map((service) => `${service.name} ${service.state} ${service.detail}`);
      const caseTicks = [...ticks.stored].filter(([id]) => !ticksBefore.has(id));
      const result: CaseResult = {
        name: faultCase.name,
        run: caseRun,
        ledgers,
        rows,
        ticks: {
          stored: caseTicks.length,
          storedTwice: caseTicks.filter(([, sequences]) => sequences.size > 1).length,
        },
        burst: `503 ${burst.unavailable}/${burst.offered} (${(burst.unavailableShare * 100).toFixed(1)} %) over ${(burst.unavailableSpanMs / 1000).toFixed(1)} s, other non-200 ${burst.other}, slowest 200 ${burst.slowestOkMs} ms (${answers.filter((answer) => answer.status === 200 && answer.elapsedMs > 2000).length} over 2 s); provider retries ${retries.length}`,
        processedLines: (
          [
            ['stripe', stripe],
            ['clerk', traffic.clerk],
            ['github', traffic.github],
          ] as const
        )
          .map(([kind, ledger]) => `${kind} ${ledger.ids.reduce((sum, id) => sum + processedLines.count(id), 0)}`)
          .join(', '),
        drainedInSeconds,
        notReady,
        failures: [
          ...rowFailures(rows),
          ...(faultFailed ? [`fault not injected: ${faultFailed}`] : []),
          ...notReady.map((service) => `not ready after the case: ${service}`),
        ],
      };
      if (result.ticks.storedTwice > 0) result.failures.push(`cron: ${result.ticks.storedTwice} ticks stored twice`);
      results.push(result);
      printCase(result);
    }
    // A case that ended with items missing: read them again now, after every later case had its drain.
    for (const result of results.filter((r) => r.rows.some((row) => row.missing.length > 0))) {
      const again = await readRows({ db, receiver, run: result.run, ledgers: result.ledgers });
      result.missingAtEnd = again.reduce((sum, row) => sum + row.missing.length, 0);
      note(
        `${result.name}: still missing at the end of the run: ${again.map((row) => `${row.kind} ${row.missing.length}`).join(', ')}`,
      );
    }
    // Ticks are counted by the soak's own consumer: a second copy may arrive after its case, so count them all again.
    const twiceInAll = [...ticks.stored.values()].filter((sequences) => sequences.size > 1).length;
    if (twiceInAll > 0) failures.push(`cron: ${twiceInAll} ticks stored twice over the run`);
    if (ticks.stored.size === 0) failures.push('cron: no tick arrived');
    note(`cron: ${ticks.stored.size} ticks over the run, ${twiceInAll} stored twice`);
    await ticks.stop();
    await messaging.close();
    await mongo.close();
  } catch (error) {
    failures.push(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await mesh?.stop();
    for (const violation of mesh?.natsViolations() ?? []) failures.push(`nats-server refused: ${violation}`);
    await receiver.stop();
    await meshLog.close();
  }
  for (const result of results) failures.push(...result.failures.map((failure) => `${result.name}: ${failure}`));
  printLedger(results);
  const passed = failures.length === 0 && results.length === chosen.length;
  process.stdout.write(passed ? '\nPASSED\n' : `\nFAILED:\n  - ${failures.join('\n  - ')}\n`);
  if (passed && env.SOAK_KEEP_DATA !== '1') await rm(dataDir, { recursive: true, force: true });
  else note(`kept ${dataDir} (mesh.log has every service's output)`);
  return passed ? 0 : 1;
}

function printCase(result: CaseResult): void {
  note(
    `  ${result.rows.map((r) => `${r.kind} ${r.applied}/${r.accepted} once, ${r.missing.length} missing, ${r.twice.length} twice`).join('; ')}; cron ${result.ticks.stored} ticks, ${result.ticks.storedTwice} twice; "processed" lines ${result.processedLines}`,
  );
  note(
    `  ${result.burst}; drained ${result.drainedInSeconds === null ? 'NOT in time' : `in ${result.drainedInSeconds} s`}; ${result.notReady.length === 0 ? 'every service ready' : `NOT READY: ${result.notReady.join('; ')}`}`,
  );
}

/** The fault ledger: a row per case and kind, then each case's burst line. */
function printLedger(results: readonly CaseResult[]): void {
  const header = ['case', 'kind', 'offered', 'accepted', 'applied once', 'missing', 'twice'];
  const lines: string[][] = [header];
  for (const result of results) {
    for (const r of result.rows)
      lines.push([result.name, r.kind, r.offered, r.accepted, r.applied, r.missing.length, r.twice.length].map(String));
    lines.push([
      result.name,
      'cron ticks',
      '-',
      '-',
      `${result.ticks.stored} stored`,
      '-',
      String(result.ticks.storedTwice),
    ]);
  }
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column].length)));
  const table = lines.map((line) => line.map((cell, column) => cell.padEnd(widths[column])).join('  ')).join('\n');
  process.stdout.write(`\nFault ledger (three-node JetStream cluster, R3; ${scale}; scheduler ×2)\n${table}\n\n`);
  for (const result of results)
    process.stdout.write(
      `${result.name}: ${result.burst}; drained ${result.drainedInSeconds ?? 'NOT'} s; ${result.notReady.length === 0 ? 'every service ready' : `not ready: ${result.notReady.join('; ')}`}\n`,
    );
}
