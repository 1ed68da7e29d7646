/**
 * `npm run soak`: the mesh exactly as `npm start` runs it (deploy/local/local-mesh.ts, free loopback ports, a
 * temporary data folder), under mixed traffic (Stripe and Clerk webhooks, jobs, cron ticks, outbound sends to a
 * loopback receiver) while each service is SIGKILLed once, nats-server is restarted and FerretDB is stopped for
 * `SOAK_MONGO_OUTAGE_SECONDS`. Then the traffic stops, the mesh drains, and a ledger is printed; exit 1 unless every
 * accepted webhook was processed once in effect, every job ran once in effect, every outbound event reached the
 * receiver, and every service is ready.
 *
 * Bounded: `SOAK_SECONDS` of traffic (600), one round of each kind per `SOAK_ROUND_MS` (2000: the inbox on FerretDB
 * drains about that, with the faults), at most
 * `SOAK_DRAIN_SECONDS` (600) of draining. Logs of the mesh go to `<data>/mesh.log`; `SOAK_KEEP_DATA=1` keeps them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { createLogger } from '@berth/logger';
import { connectMessaging } from '@berth/messaging';
import { readConsumerLag, readServiceHealth } from '../../services/cli/src/commands/status/read-status';
import { startLocalMesh, type LocalMeshHandle } from '../../deploy/local/local-mesh';
import { localSecrets } from '../../deploy/local/local-secrets';
import { WebhookReceiver } from '../support/webhook-receiver';
import { CronTickCounter, registerSoakCron } from './cron-ticks';
import { runClusterSoak } from './cluster-soak';
import { checkLedger, printLedger } from './ledger';
import { createReceiverEndpoint, MeshLog, soakMeshEnv, waitUntilReady } from './soak-mesh';
import { createSoakWorkspaces, Traffic } from './traffic';

const env = process.env;
const seconds = Number(env.SOAK_SECONDS ?? 600);
const roundMs = Number(env.SOAK_ROUND_MS ?? 2000);
const drainSeconds = Number(env.SOAK_DRAIN_SECONDS ?? 600);
const mongoOutageSeconds = Number(env.SOAK_MONGO_OUTAGE_SECONDS ?? 30);
const SERVICES = ['gateway', 'billing-sync', 'identity-sync', 'app-worker', 'scheduler-1', 'scheduler-2', 'dispatcher'];

const pause = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const note = (line: string): void =>
  void process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

async function main(): Promise<number> {
  const run = Date.now().toString(36);
  const dataDir = await mkdtemp(join(tmpdir(), 'berth-soak-'));
  const meshLog = new MeshLog(join(dataDir, 'mesh.log'));
  // The soak's own clients see every fault (disconnects, refused publishes); they retry, so only errors are shown.
  const logger = createLogger({ service: 'soak', level: 'error' });
  note(`${seconds} s of traffic, a round every ${roundMs} ms, data and logs in ${dataDir}`);

  const receiver = await new WebhookReceiver().start();
  let mesh: LocalMeshHandle | undefined;
  let exitCode = 1;
  try {
    mesh = await startLocalMesh({
      env: soakMeshEnv(receiver.url),
      dataDir,
      freePorts: true,
      supervisor: { initialBackoffMs: 500, maxBackoffMs: 5000 },
      write: (line) => meshLog.write(line),
    });
    const started = mesh;
    note(
      `mesh up: gateway ${started.mesh.gatewayUrl}, NATS ${started.nats?.url} (each service as its own user), FerretDB ${started.mesh.mongoUrl}`,
    );
    await waitUntilReady(started, 180_000);
    note('every service ready');

    const rounds = Math.ceil((seconds * 1000) / roundMs);
    const mongo = await MongoClient.connect(started.mesh.mongoUrl);
    const db = mongo.db(started.mesh.mongoDb);
    await createSoakWorkspaces(db, run, rounds);
    const messaging = await connectMessaging({ servers: started.mesh.natsUrl, name: 'soak', logger });
    const endpoint = await createReceiverEndpoint(started, receiver.url, run);
    const ticks = await CronTickCounter.start(messaging, logger, run);
    await registerSoakCron(messaging, logger, run);

    const secrets = localSecrets(join(dataDir, 'local-secrets.json'));
    const trafficEnds = Date.now() + seconds * 1000;
    const drainEnds = trafficEnds + drainSeconds * 1000;
    const traffic = new Traffic({
      gatewayUrl: started.mesh.gatewayUrl,
      // The mesh's own webhook secrets: npm start generates them (there is no default secret to sign with).
      secrets: { stripe: secrets.STRIPE_WEBHOOK_SECRET, clerk: secrets.CLERK_WEBHOOK_SIGNING_SECRET },
      messaging,
      logger,
      run,
      retryUntil: () => drainEnds,
      outbound: { workspaceId: endpoint.workspaceId, eventType: 'soak.event' },
    });
    const faults = runFaults(started, seconds * 1000);
    for (let round = 0; round < rounds && Date.now() < trafficEnds; round++) {
      traffic.offerRound();
      await pause(roundMs);
    }
    note('traffic done; waiting for the faults to end and every offer to be accepted');
    const faultLog = await faults;
    await traffic.settle();
    note('draining');
    const result = await checkLedger({
      db,
      receiver,
      traffic,
      ticks,
      drainEnds,
      services: () => readServiceHealth(started.mesh.health),
      consumerLag: () => readConsumerLag(messaging),
      restarts: started.services.restarts(),
      faults: faultLog,
      run,
    });
    printLedger(result, (line) => process.stdout.write(`${line}\n`));
    // Every service ran as its own NATS user (deploy/nats/auth.conf): nothing it did may have been refused.
    const violations = started.natsViolations();
    for (const violation of violations) note(`nats-server refused: ${violation}`);
    exitCode = result.passed && violations.length === 0 ? 0 : 1;
    await ticks.stop();
    await messaging.close();
    await mongo.close();
  } catch (error) {
    note(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await mesh?.stop();
    await receiver.stop();
    await meshLog.close();
    if (env.SOAK_KEEP_DATA !== '1' && exitCode === 0) await rm(dataDir, { recursive: true, force: true });
    else note(`kept ${dataDir} (mesh.log has every service's output)`);
  }
  return exitCode;
}

/**
 * Each service SIGKILLed once, nats-server restarted, FerretDB stopped for the outage, spread over the first 80%
 * of the traffic. Resolves with what was done when.
 */
async function runFaults(mesh: LocalMeshHandle, trafficMs: number): Promise<string[]> {
  const done: string[] = [];
  const faults: [string, () => Promise<void>][] = [
    ...SERVICES.map((name): [string, () => Promise<void>] => [
      `SIGKILL ${name}`,
      async () => {
        const pid = mesh.services.pidOf(name);
        if (!pid) throw new Error(`${name} is not running`);
        process.kill(pid, 'SIGKILL');
      },
    ]),
    ['restart nats-server', async () => mesh.nats!.restart()],
    [
      `stop FerretDB for ${mongoOutageSeconds} s`,
      async () => {
        await mesh.mongo!.process.stop();
        await pause(mongoOutageSeconds * 1000);
        await mesh.mongo!.restart();
      },
    ],
  ];
  const gap = (trafficMs * 0.8) / (faults.length + 1);
  for (const [what, fault] of faults) {
    await pause(gap);
    const at = new Date().toISOString().slice(11, 19);
    try {
      await fault();
      done.push(`${at} ${what}`);
      note(what);
    } catch (error) {
      done.push(`${at} ${what} FAILED: ${String(error)}`);
      note(`${what} failed: ${String(error)}`);
    }
  }
  return done;
}

// `npm run soak -- --cluster`: the fault cases of a three-node JetStream cluster (cluster-soak.ts) instead.
void (process.argv.includes('--cluster') ? runClusterSoak() : main()).then((code) => {
  process.exitCode = code;
});
