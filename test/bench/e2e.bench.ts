/**
 * `npm run bench:e2e`: webhooks applied end to end, from the provider's request to `processedAt`, through Berth as
 * `npm start` runs it (gateway, billing-sync, identity-sync, nats-server, FerretDB; or the MongoDB of MONGO_URL)
 * beside the seeds' stack (Fastify → PostgreSQL inbox row → BullMQ job → worker → `processed_at`), in one run, at
 * each inbox size. Both stacks read the customer from the same Stripe stand-in process.
 *
 * Per stack, provider and inbox size: events/s end to end (fresh signed events, BENCH_E2E_CONNECTIONS at once, from
 * the first request to the last `processedAt`), p50 / p99 from the gateway's 200 to `processedAt`, CPU ms per 1,000
 * events of each process (from /proc), and the p99 at a fixed offered rate.
 *
 * Env: BENCH_E2E_SIZES (0,100000,1000000: inbox rows, filled straight into the store), BENCH_E2E_EVENTS (3000 per
 * measurement), BENCH_E2E_ROUNDS (3; medians are reported), BENCH_E2E_CONNECTIONS (32), BENCH_E2E_RATE (100 events/s)
 * and BENCH_E2E_RATE_S (10 s), BENCH_E2E_WARMUP (300 events per stack and provider), BENCH_E2E_TARGETS (berth,peer),
 * BENCH_E2E_POSTGRES_URL (postgres://postgres@127.0.0.1:5432), MONGO_URL (run Berth on that MongoDB).
 * Results: test/bench/results/e2e-<timestamp>.json; service logs in the folder printed at the start.
 * `-- --cluster`: R1 beside R3 on a three-node JetStream cluster instead (e2e/cluster-bench.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { envInt } from './env-int';
import { treeCpuSeconds } from './harness';
import { installCleanup, stopAll } from './lifecycle';
import { runClusterBench } from './e2e/cluster-bench';
import { drive } from './e2e/drive';
import { clerkRequests, stripeRequests, type E2eRequest, type Provider } from './e2e/events';
import { benchLogDir, repoRoot } from './e2e/processes';
import { startBenchStacks } from './e2e/start-stacks';
import type { E2eStack } from './e2e/stack';
import { median } from './stats';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** One measurement: `events` fresh events through one stack for one provider. */
interface Measurement {
  events: number;
  eventsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU ms per 1,000 events, per process. */
  cpuMsPerK: Record<string, number>;
  failures: Record<string, number>;
}

async function measure(
  stack: E2eStack,
  provider: Provider,
  requests: E2eRequest[],
  connections: number,
  standInPid: number,
  rate?: number,
): Promise<Measurement> {
  const pids: Record<string, number> = { ...(await stack.processes()), 'stripe-stand-in': standInPid };
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, treeCpuSeconds(pid)]));
  const driven = await drive({ url: stack.url(provider), requests, connections, rate });
  const accepted = [...driven.okAt.keys()];
  const processed = await stack.waitProcessed(provider, accepted, 300_000);
  // Processes that appeared meanwhile (a pool's new database connection) count from their start.
  const after = await stack.processes();
  const known = new Set(Object.values(pids));
  Object.entries(after)
    .filter(([, pid]) => !known.has(pid))
    .forEach(([name, pid]) => {
      pids[`${name} (new)`] = pid;
      before[`${name} (new)`] = 0;
    });
  const cpuMsPerK = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [
      name,
      Math.round(((treeCpuSeconds(pid) - before[name]) * 1e6) / Math.max(accepted.length, 1)),
    ]),
  );
  const lastProcessed = Math.max(...processed.values());
  const latencies = accepted.map((id) => processed.get(id)! - driven.okAt.get(id)!);
  return {
    events: accepted.length,
    eventsPerSec: Math.round((accepted.length * 1000) / Math.max(lastProcessed - driven.startedAt, 1)),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuMsPerK,
    failures: driven.failures,
  };
}

/** The figures of one stack, provider and inbox size: medians over the rounds. */
interface Row {
  stack: string;
  provider: Provider;
  inboxRows: number;
  rounds: Measurement[];
  medianEventsPerSec: number;
  medianP50Ms: number;
  medianP99Ms: number;
  /** The p99 at the fixed offered rate, and the rate achieved there. */
  fixedRate?: { offered: number; p99Ms: number; p50Ms: number; eventsPerSec: number };
  medianCpuMsPerK: Record<string, number>;
}

function summarise(
  stack: string,
  provider: Provider,
  inboxRows: number,
  rounds: Measurement[],
  fixed?: Measurement,
  offered?: number,
): Row {
  const names = Object.keys(rounds[0]?.cpuMsPerK ?? {});
  return {
    stack,
    provider,
    inboxRows,
    rounds,
    medianEventsPerSec: median(rounds.map((r) => r.eventsPerSec)),
    medianP50Ms: median(rounds.map((r) => r.p50Ms)),
    medianP99Ms: median(rounds.map((r) => r.p99Ms)),
    fixedRate:
      fixed && offered
        ? { offered, p99Ms: fixed.p99Ms, p50Ms: fixed.p50Ms, eventsPerSec: fixed.eventsPerSec }
        : undefined,
    medianCpuMsPerK: Object.fromEntries(names.map((name) => [name, median(rounds.map((r) => r.cpuMsPerK[name] ?? 0))])),
  };
}

function printTable(rows: Row[]): void {
  const header = [
    'stack',
    'provider',
    'inbox rows',
    'events/s',
    'p50 ms',
    'p99 ms',
    'p99 ms @ fixed rate',
    'CPU ms per 1,000 events (median)',
  ];
  const cells = rows.map((r) => [
    r.stack,
    r.provider,
    r.inboxRows.toLocaleString('en'),
    String(r.medianEventsPerSec),
    String(r.medianP50Ms),
    String(r.medianP99Ms),
    r.fixedRate ? `${r.fixedRate.p99Ms} @ ${r.fixedRate.offered}/s` : '-',
    Object.entries(r.medianCpuMsPerK)
      .filter(([, ms]) => ms > 0)
      .map(([name, ms]) => `${name} ${ms}`)
      .join(', '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  for (const row of [header, ...cells])
    console.log(
      row.map((cell, i) => (i < 2 || i === 7 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '),
    );
}

async function main(): Promise<void> {
  process.chdir(repoRoot);
  const sizes = (process.env.BENCH_E2E_SIZES ?? '0,100000,1000000').split(',').map((size) => Number(size.trim()));
  if (sizes.some((size) => !Number.isInteger(size) || size < 0))
    throw new Error('BENCH_E2E_SIZES must be a comma-separated list of row counts');
  const events = envInt('BENCH_E2E_EVENTS', 3000, 10, 1_000_000);
  const rounds = envInt('BENCH_E2E_ROUNDS', 3, 1, 20);
  const connections = envInt('BENCH_E2E_CONNECTIONS', 32, 1, 1000);
  const rate = envInt('BENCH_E2E_RATE', 100, 1, 100_000);
  const rateSeconds = envInt('BENCH_E2E_RATE_S', 10, 1, 600);
  const warmup = envInt('BENCH_E2E_WARMUP', 300, 0, 100_000);
  const targets = (process.env.BENCH_E2E_TARGETS ?? 'berth,peer').split(',').map((target) => target.trim());
  const disarm = installCleanup(6 * 3600 * 1000);

  execFileSync(process.execPath, [join('deploy', 'runtime', 'build.js')], { stdio: 'ignore' });
  execFileSync(
    process.execPath,
    [join('deploy', 'runtime', 'build.js'), join('test', 'bench'), join('test', 'support')],
    { stdio: 'ignore' },
  );
  const logDir = await benchLogDir();
  console.log(
    `e2e bench: inbox sizes ${sizes.join(', ')}; ${events} events x ${rounds} round(s) per measurement at ${connections} connections; ${rate}/s for ${rateSeconds} s; ${cpus().length} CPUs; logs in ${logDir}`,
  );

  const { stacks, standInPid, stop } = await startBenchStacks({
    targets,
    logDir,
    mongoUrl: process.env.MONGO_URL || undefined,
    postgresUrl: process.env.BENCH_E2E_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432',
  });

  const sign = (stack: E2eStack, provider: Provider, count: number): E2eRequest[] =>
    provider === 'stripe' ? stripeRequests(stack.secrets.stripe!, count) : clerkRequests(stack.secrets.clerk!, count);
  for (const stack of stacks) {
    for (const provider of stack.providers) {
      if (warmup > 0) await measure(stack, provider, sign(stack, provider, warmup), connections, standInPid);
    }
  }

  const rows: Row[] = [];
  const timestamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = join(__dirname, 'results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `e2e-${timestamp}.json`);
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
  };
  const save = (): Promise<void> =>
    writeFile(
      file,
      JSON.stringify(
        {
          timestamp,
          machine,
          config: {
            sizes,
            events,
            rounds,
            connections,
            rate,
            rateSeconds,
            warmup,
            targets,
            mongo: Boolean(process.env.MONGO_URL),
          },
          rows,
        },
        null,
        2,
      ),
    );
  for (const size of sizes) {
    for (const stack of stacks) {
      const started = Date.now();
      await stack.fillTo(size);
      console.log(
        `${stack.name}: inbox holds ${(await stack.rowCount()).toLocaleString('en')} rows (filled in ${Math.round((Date.now() - started) / 1000)} s)`,
      );
    }
    const results = new Map<string, Measurement[]>();
    for (let round = 1; round <= rounds; round++) {
      for (const stack of stacks) {
        for (const provider of stack.providers) {
          const result = await measure(stack, provider, sign(stack, provider, events), connections, standInPid);
          const key = `${stack.name}|${provider}`;
          results.set(key, [...(results.get(key) ?? []), result]);
          console.log(
            `${stack.name} ${provider} @ ${size.toLocaleString('en')} rows, round ${round}/${rounds}: ${result.eventsPerSec} events/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.events} accepted${Object.keys(result.failures).length ? `, failures ${JSON.stringify(result.failures)}` : ''}`,
          );
        }
      }
    }
    for (const stack of stacks) {
      for (const provider of stack.providers) {
        const fixed = await measure(
          stack,
          provider,
          sign(stack, provider, rate * rateSeconds),
          connections,
          standInPid,
          rate,
        );
        console.log(
          `${stack.name} ${provider} @ ${size.toLocaleString('en')} rows, ${rate}/s offered: p50 ${fixed.p50Ms} ms, p99 ${fixed.p99Ms} ms, ${fixed.eventsPerSec} events/s`,
        );
        rows.push(summarise(stack.name, provider, size, results.get(`${stack.name}|${provider}`) ?? [], fixed, rate));
      }
    }
    // Each size's figures are printed and saved as soon as they are measured: a long run stopped early keeps them.
    console.log('');
    printTable(rows);
    await save();
  }

  const berth = rows.filter((row) => row.stack.startsWith('berth') && row.provider === 'stripe');
  const peer = rows.filter((row) => !row.stack.startsWith('berth'));
  for (const row of berth) {
    const other = peer.find((candidate) => candidate.inboxRows === row.inboxRows);
    if (other)
      console.log(
        `berth/seeds events/s, Stripe at ${row.inboxRows.toLocaleString('en')} rows: ${Math.round((row.medianEventsPerSec / other.medianEventsPerSec) * 100) / 100}`,
      );
  }
  for (const stack of stacks) {
    for (const provider of stack.providers) {
      const own = rows.filter((row) => row.stack === stack.name && row.provider === provider);
      if (own.length > 1)
        console.log(
          `${stack.name} ${provider}: events/s at ${own[own.length - 1].inboxRows.toLocaleString('en')} rows / at ${own[0].inboxRows.toLocaleString('en')} rows: ${Math.round((own[own.length - 1].medianEventsPerSec / own[0].medianEventsPerSec) * 100) / 100}`,
        );
    }
  }

  console.log(`results: ${file}`);
  await stop();
  disarm();
}

// `--cluster`: R1 beside R3 on a three-node JetStream cluster, and the gateway during an election (cluster-bench.ts).
(process.argv.includes('--cluster') ? runClusterBench() : main()).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    void stopAll(10_000).finally(() => process.exit(1));
  },
);
