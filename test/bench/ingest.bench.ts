/**
 * `npm run bench:ingest`: Stripe webhook ingest throughput of Berth's gateway against the peer's, alternating peer
 * and Berth rounds on the same machine.
 *
 * By default each gateway runs inside its whole system, both systems up side by side for the whole run
 * (ingest-mesh.ts): Berth as `npm start` runs it, the peer as the seeds' stack (Fastify + PostgreSQL inbox +
 * BullMQ + its worker + Redis); every process's CPU per 1,000 requests is reported, and each round ends when the
 * loaded system has applied everything it accepted. `-- --gateway-only` loads each gateway alone instead, started
 * afresh per round with only its store (Berth: nats-server; the peer: Fastify + stripe + Redis SETNX + BullMQ), which
 * is where a profile of the gateway's own code is clearest; `-- --gateway-only --mesh-beside` does the same with
 * Berth's whole mesh up and idle beside both gateways, as on a machine that also runs `npm start`.
 *
 * Env: BENCH_DURATION_S (10), BENCH_WARMUP_S (3), BENCH_CONNECTIONS (32), BENCH_ROUNDS (3),
 * BENCH_TARGETS (peer,berth), BENCH_BERTH_PATH (/webhooks/stripe), BENCH_BERTH_MAIN (services/gateway/src/main.ts),
 * BENCH_RATE (offered requests/s, with autocannon; unlimited by default), BENCH_CLIENT (`wrk`, the default when it
 * is installed and no rate is set: a C client taking a fraction of autocannon's CPU from the cores both targets
 * share; or `autocannon`), BENCH_GATEWAY_NODE_ARGS (extra Node flags for Berth's gateway, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * Results go to test/bench/results/ingest-<timestamp>.json.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { berthGatewayMain, startBerthGatewayForBench, type BenchTarget } from './berth-target';
import { envInt } from './env-int';
import { runLoad, stripeRequestFactory, type LoadClient, type LoadResult } from './harness';
import { installCleanup, stopAll, trackStop } from './lifecycle';
import { benchLogDir } from './e2e/processes';
import { startMeshTargets } from './ingest-mesh';
import { startPeerForBench } from './peer/peer-target';
import { median } from './stats';

type TargetName = 'peer' | 'berth';

interface RoundResult extends LoadResult {
  /** Events the target reports as durably accepted after the round, when it can tell. */
  accepted?: number;
}

interface Summary {
  rounds: RoundResult[];
  medianRequestsPerSec: number;
  medianP50Ms: number;
  medianP99Ms: number;
  peakRssMb: number;
  storePeakRssMb: number;
  /** Median CPU ms per 1,000 requests of the gateway, and of its store. */
  medianCpuMsPerKRequests: number;
  medianStoreCpuMsPerKRequests: number;
  /** Median CPU ms per 1,000 requests of every process of the system, and their sum (mesh mode). */
  medianCpuMsPerKByProcess?: Record<string, number>;
  medianSystemCpuMsPerKRequests?: number;
  non2xx: number;
  errors: number;
}

function summarise(rounds: RoundResult[]): Summary {
  const names = Object.keys(rounds[0]?.cpuMsPerKByProcess ?? {});
  const byProcess = (round: RoundResult): Record<string, number> => round.cpuMsPerKByProcess ?? {};
  const total = (round: RoundResult): number => Object.values(byProcess(round)).reduce((sum, ms) => sum + ms, 0);
  return {
    rounds,
    medianRequestsPerSec: median(rounds.map((r) => r.requestsPerSec)),
    medianP50Ms: median(rounds.map((r) => r.p50Ms)),
    medianP99Ms: median(rounds.map((r) => r.p99Ms)),
    peakRssMb: Math.max(...rounds.map((r) => r.peakRssMb)),
    storePeakRssMb: Math.max(...rounds.map((r) => r.infraPeakRssMb ?? 0)),
    medianCpuMsPerKRequests: median(rounds.map((r) => r.cpuMsPerKRequests)),
    medianStoreCpuMsPerKRequests: median(rounds.map((r) => r.infraCpuMsPerKRequests ?? 0)),
    medianCpuMsPerKByProcess: names.length
      ? Object.fromEntries(names.map((name) => [name, median(rounds.map((r) => byProcess(r)[name] ?? 0))]))
      : undefined,
    medianSystemCpuMsPerKRequests: names.length ? median(rounds.map(total)) : undefined,
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
  };
}

function printTable(summaries: Partial<Record<TargetName, Summary>>): void {
  const header = [
    'target',
    'rounds',
    'req/s (median)',
    'p50 ms',
    'p99 ms',
    'peak RSS MB',
    'store RSS MB',
    'CPU ms/1k req',
    'store CPU ms/1k',
    'system CPU ms/1k',
    'non-2xx',
    'errors',
  ];
  const rows = Object.entries(summaries).map(([name, s]) =>
    [
      name,
      s.rounds.length,
      s.medianRequestsPerSec,
      s.medianP50Ms,
      s.medianP99Ms,
      s.peakRssMb,
      s.storePeakRssMb,
      s.medianCpuMsPerKRequests,
      s.medianStoreCpuMsPerKRequests,
      s.medianSystemCpuMsPerKRequests ?? '-',
      s.non2xx,
      s.errors,
    ].map(String),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  for (const row of [header, ...rows])
    console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
}

/** BENCH_CLIENT, else wrk when it is installed and no fixed rate is asked for (wrk offers none), else autocannon. */
function loadClient(value: string | undefined, rate: number | undefined): LoadClient {
  if (value === 'autocannon' || value === 'wrk') return value;
  if (value !== undefined && value !== '') throw new Error(`BENCH_CLIENT must be autocannon or wrk, not ${value}`);
  if (rate !== undefined) return 'autocannon';
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk --version prints its banner and exits 1; only a missing binary fails to spawn.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      console.log('wrk is not installed (apt-get install wrk): load from autocannon, which takes more of the CPU');
      return 'autocannon';
    }
  }
  return 'wrk';
}

async function runRound(
  start: () => Promise<BenchTarget>,
  config: { connections: number; durationS: number; warmupS: number; rate?: number; client: LoadClient },
  secret: string,
): Promise<RoundResult> {
  const target = await start();
  const untrack = trackStop(() => target.stop());
  try {
    const result: RoundResult = await runLoad({
      url: target.url,
      makeRequest: target.makeRequest ?? stripeRequestFactory(secret),
      pid: target.pid,
      infraPid: target.infraPid,
      processes: target.processes,
      ...config,
    });
    result.accepted = await target.countAccepted?.();
    return result;
  } finally {
    await target.stop();
    untrack();
  }
}

function describe(r: RoundResult): string {
  const accepted = r.accepted === undefined ? '' : `, accepted ${r.accepted} for ${r.ok2xx} 2xx`;
  const statuses = r.non2xx ? ` (statuses ${JSON.stringify(r.statusCodes)}: figures not valid)` : '';
  const live = r.signedLive ? `, ${r.signedLive} signed live (pool of ${r.pooled} ran out)` : '';
  const reused = r.reused ? `, ${r.reused} sent twice (pool of ${r.pooled} ran out: figures not valid)` : '';
  const system = r.cpuMsPerKByProcess
    ? `; CPU ms per 1k requests by process: ${Object.entries(r.cpuMsPerKByProcess)
        .filter(([, ms]) => ms > 0)
        .map(([name, ms]) => `${name} ${ms}`)
        .join(', ')}`
    : '';
  return `${r.requestsPerSec} req/s (warm-up ${r.warmupRequestsPerSec}), p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, RSS ${r.peakRssMb} MB (store ${r.infraPeakRssMb ?? '-'} MB), CPU ${r.cpuMsPerKRequests} ms per 1k requests (store ${r.infraCpuMsPerKRequests ?? '-'}, load generator ${r.clientCpuMsPerKRequests}), non-2xx ${r.non2xx}${statuses}, errors ${r.errors}${accepted}${live}${reused}${system}`;
}

async function main(): Promise<void> {
  process.chdir(resolve(__dirname, '..', '..')); // children resolve swc and tsconfig from the repo root
  const rate = process.env.BENCH_RATE ? envInt('BENCH_RATE', 0, 1, 1_000_000) : undefined;
  const config = {
    durationS: envInt('BENCH_DURATION_S', 10, 1, 240),
    warmupS: envInt('BENCH_WARMUP_S', 3, 0, 60),
    connections: envInt('BENCH_CONNECTIONS', 32, 1, 1000),
    rate,
    client: loadClient(process.env.BENCH_CLIENT, rate),
  };
  const rounds = envInt('BENCH_ROUNDS', 3, 1, 20);
  const disarm = installCleanup((rounds * 2 * (config.warmupS + config.durationS + 720) + 600) * 1000);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;

  // Both targets start from a filled compile cache, as the images do (`npm run build`): a gateway compiling its own
  // sources on a first start would carry the compiler in its peak memory.
  const build = join('deploy', 'runtime', 'build.js');
  execFileSync(process.execPath, [build], { stdio: 'ignore' });
  execFileSync(process.execPath, [build, join('test', 'bench'), join('test', 'support')], { stdio: 'ignore' });

  const wanted = (process.env.BENCH_TARGETS ?? 'peer,berth').split(',').map((t) => t.trim());
  const gatewayOnly = process.argv.includes('--gateway-only');
  const starters: Partial<Record<TargetName, () => Promise<BenchTarget>>> = {};
  let berthNote: string | undefined;
  let stopMesh: (() => Promise<void>) | undefined;
  if (!gatewayOnly) {
    const logDir = await benchLogDir();
    console.log(`mesh mode: both systems up for the whole run; logs in ${logDir}`);
    const mesh = await startMeshTargets({
      targets: wanted,
      logDir,
      postgresUrl: process.env.BENCH_E2E_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432',
    });
    stopMesh = mesh.stop;
    Object.assign(starters, mesh.targets);
    if (!wanted.includes('berth')) berthNote = 'Berth not selected (BENCH_TARGETS)';
  } else {
    if (process.argv.includes('--mesh-beside')) {
      // Berth's whole mesh up and idle beside both gateways, as on a machine that runs `npm start`.
      const logDir = await benchLogDir();
      console.log(`Berth's mesh up beside both gateways; logs in ${logDir}`);
      const beside = await startMeshTargets({ targets: ['berth'], logDir, postgresUrl: '' });
      stopMesh = beside.stop;
    }
    if (wanted.includes('peer')) starters.peer = () => startPeerForBench(secret);
    if (!wanted.includes('berth')) berthNote = 'Berth not selected (BENCH_TARGETS)';
    else if (existsSync(berthGatewayMain)) starters.berth = () => startBerthGatewayForBench(secret);
    else
      console.log(
        (berthNote = `Berth's gateway is missing (${berthGatewayMain} does not exist); reporting the peer only`),
      );
  }
  if (!starters.peer && !starters.berth)
    throw new Error('nothing to run: BENCH_TARGETS selects neither peer nor an existing Berth gateway');

  console.log(
    `ingest bench (${gatewayOnly ? 'each gateway alone' : 'each gateway in its whole system'}): ${rounds} round(s), ${config.connections} connections${config.rate ? ` at ${config.rate} req/s offered` : ''}, ${config.warmupS} s warm-up + ${config.durationS} s timed, ${cpus().length} CPUs, load from ${config.client}`,
  );
  const results: Partial<Record<TargetName, RoundResult[]>> = {};
  for (let round = 1; round <= rounds; round++) {
    for (const name of ['peer', 'berth'] as const) {
      const start = starters[name];
      if (!start) continue;
      try {
        const result = await runRound(start, config, secret);
        (results[name] ??= []).push(result);
        console.log(`${name.padEnd(5)} round ${round}/${rounds}: ${describe(result)}`);
      } catch (error) {
        if (name === 'peer') throw error;
        berthNote = `Berth's gateway failed in round ${round}: ${error instanceof Error ? error.message : String(error)}`;
        console.log(berthNote);
        delete starters.berth;
      }
    }
  }

  const summaries: Partial<Record<TargetName, Summary>> = {};
  for (const name of ['peer', 'berth'] as const) if (results[name]?.length) summaries[name] = summarise(results[name]);
  console.log('');
  printTable(summaries);
  const ratio =
    summaries.peer && summaries.berth
      ? Math.round((summaries.berth.medianRequestsPerSec / summaries.peer.medianRequestsPerSec) * 100) / 100
      : undefined;
  // Each Berth round beside the peer round just before it: the machine drifts less within a pair than over a run.
  const roundRatios = (results.berth ?? [])
    .map((berth, index) => berth.requestsPerSec / (results.peer?.[index]?.requestsPerSec ?? Number.NaN))
    .filter(Number.isFinite)
    .map((value) => Math.round(value * 100) / 100);
  console.log(
    ratio === undefined
      ? `\nberth/peer req/s: n/a${berthNote ? ` (${berthNote})` : ''}`
      : `\nberth/peer median req/s: ${ratio}; round ratios ${roundRatios.join(', ')}, median ${median(roundRatios)}`,
  );

  const timestamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = join(__dirname, 'results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `ingest-${timestamp}.json`);
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
  await writeFile(
    file,
    JSON.stringify(
      {
        timestamp,
        machine,
        config: { ...config, rounds, mode: gatewayOnly ? 'gateway-only' : 'mesh' },
        ...summaries,
        berthNote,
        berthOverPeerRequestsPerSec: ratio,
        berthOverPeerRoundRatios: roundRatios,
      },
      null,
      2,
    ),
  );
  console.log(`results: ${file}`);
  await stopMesh?.();
  disarm();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    void stopAll(5000).finally(() => process.exit(1));
  },
);
