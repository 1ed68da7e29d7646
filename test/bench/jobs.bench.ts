/**
 * `npm run bench:jobs`: jobs per second from add to completion with an empty handler, at worker concurrency 1 and
 * 32, Berth (JetStream, `sync_interval: always`) beside BullMQ (Redis with `appendfsync always`), on this machine,
 * in one run: the systems alternate round by round, and the table shows medians.
 *
 * Options: --rounds <n> (5), --jobs <n> (10000), --window <n> concurrent adds (1000), --concurrency 1,32,
 * --variants berth,berth-unbatched,bullmq,bullmq-bulk,berth-keyed,berth-rate,bullmq-limiter,berth-priority,
 * berth-priority-queue.
 *
 * `berth-priority` (not in the default set) runs the jobs on a queue with `priorities: true`, job i at priority
 * `i % 10 + 1`: ten band consumers, jobs grouped per band, against `berth` for the cost of priorities;
 * `berth-priority-queue` the same queue option with jobs without priority (the cost of the option alone).
 *
 * The flow-control row: `berth-keyed` runs the same jobs with per-key concurrency on (`@Process(…, { concurrency:
 * { key: workspaceId, limit: 2 } })`, 1,000 workspaces, job i in workspace i % 1000), to read against `berth` (the
 * overhead of the limit) and `bullmq-limiter` (BullMQ OSS with its global limiter, set high enough, 100,000 a second,
 * not to throttle: it has no per-group limit, that is BullMQ Pro). `berth-rate` runs them with a per-key rate limit
 * instead (`@Process(…, { rateLimit: { key: workspaceId, limit: 1000, perMs: 1000 } })`, the same 1,000
 * workspaces), set high enough never to refuse: the cost of taking a start, not of waiting.
 *
 * `berth-keyed-add` (not in the default set) gives the same key and limit to `add` instead (`{ concurrency: { key,
 * limit: 2 } }`), which makes the jobs fair by default (moved to the queue by the fair feeder, key after key);
 * `berth-keyed-add-unfair` the same with `fair: false`, for the cost of the feeder.
 */
import { parseArgs } from 'node:util';
import { defaultToolsBinDir, startNatsServer, type NatsServerHandle } from '@berth/local-infra';
import { createLogger } from '@berth/logger';
import { connectMessaging, type Messaging } from '@berth/messaging';
import { provisionJobInfrastructure } from '@berth/jobs';
import { runBerthRound } from './jobs/berth-round';
import { runBullRound } from './jobs/bullmq-round';
import { startBenchRedis, type BenchRedis } from './jobs/redis-server';
import { median, table } from './stats';

type Variant =
  | 'berth'
  | 'berth-unbatched'
  | 'bullmq'
  | 'bullmq-bulk'
  | 'berth-keyed'
  | 'berth-rate'
  | 'bullmq-limiter'
  | 'berth-priority'
  | 'berth-priority-queue'
  | 'berth-keyed-add'
  | 'berth-keyed-add-unfair';

const LABELS: Record<Variant, string> = {
  berth: 'Berth (JetStream), add',
  'berth-unbatched': 'Berth, one job per message',
  bullmq: 'BullMQ 6 (Redis), add',
  'bullmq-bulk': 'BullMQ 6 (Redis), addBulk',
  'berth-keyed': 'Berth, per-key concurrency 2 over 1,000 keys',
  'berth-rate': 'Berth, per-key rate limit 1,000/s over 1,000 keys',
  'bullmq-limiter': 'BullMQ 6, global limiter (OSS)',
  'berth-priority': 'Berth, priorities 1-10 (queue option priorities)',
  'berth-priority-queue': 'Berth, queue option priorities, jobs without priority',
  'berth-keyed-add': 'Berth, per-key concurrency 2 given to add (fair by default)',
  'berth-keyed-add-unfair': 'Berth, per-key concurrency 2 given to add, fair: false',
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '5' },
      jobs: { type: 'string', default: '10000' },
      window: { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '1,32' },
      variants: {
        type: 'string',
        default: 'berth,bullmq,berth-unbatched,bullmq-bulk,berth-keyed,berth-rate,bullmq-limiter',
      },
      'tools-dir': { type: 'string' },
    },
  });
  const rounds = Number(values.rounds);
  const jobs = Number(values.jobs);
  const addWindow = Number(values.window);
  const concurrencies = values.concurrency.split(',').map(Number);
  const variants = values.variants.split(',') as Variant[];
  const logger = createLogger({ service: 'bench-jobs', level: 'warn' });

  let nats: NatsServerHandle | undefined;
  let redis: BenchRedis | undefined;
  let messaging: Messaging | undefined;
  const stopServers = async (): Promise<void> => {
    await messaging?.close().catch(() => undefined);
    await nats?.stop().catch(() => undefined);
    await redis?.stop().catch(() => undefined);
  };
  const abort = (reason: string, code: number): void => {
    process.stderr.write(`bench:jobs: ${reason}; stopping nats-server and redis-server\n`);
    void stopServers().finally(() => process.exit(code));
  };
  const watchdog = setTimeout(() => abort('over 45 minutes, giving up', 2), 45 * 60 * 1000);
  process.once('SIGINT', () => abort('interrupted', 130));
  process.once('SIGTERM', () => abort('terminated', 143));
  try {
    nats = await startNatsServer({ binDir: defaultToolsBinDir(values['tools-dir']) });
    redis = await startBenchRedis();
    messaging = await connectMessaging({ servers: nats.url, name: 'bench-jobs', logger, timeoutMs: 30000 });
    await provisionJobInfrastructure(messaging);
    process.stdout.write(
      `bench:jobs: ${jobs} jobs per run, ${addWindow} concurrent adds, ${rounds} rounds, nats-server sync_interval always, redis appendfsync always\n`,
    );

    const results = new Map<string, number[]>();
    let run = 0;
    for (const concurrency of concurrencies) {
      for (let round = 0; round < rounds; round++) {
        const order = variants.map((_, index) => variants[(index + round) % variants.length]);
        for (const variant of order) {
          run += 1;
          const queue = `bench-${process.pid}-${run}`;
          const rate = variant.startsWith('berth')
            ? await runBerthRound({
                messaging,
                logger,
                queue,
                concurrency,
                jobs,
                addWindow,
                batching: variant === 'berth-unbatched' ? { maxJobsPerMessage: 1 } : undefined,
                keyed:
                  variant === 'berth-keyed'
                    ? { keys: 1000, limit: 2 }
                    : variant.startsWith('berth-keyed-add')
                      ? { keys: 1000, limit: 2, atAdd: variant === 'berth-keyed-add' ? 'fair' : 'unfair' }
                      : undefined,
                rateLimited: variant === 'berth-rate' ? { keys: 1000, limit: 1000, perMs: 1000 } : undefined,
                prioritized:
                  variant === 'berth-priority' ? 'every-job' : variant === 'berth-priority-queue' ? 'queue' : undefined,
              })
            : await runBullRound({
                redisPort: redis.port,
                queue,
                concurrency,
                jobs,
                addWindow,
                bulk: variant === 'bullmq-bulk',
                limiter: variant === 'bullmq-limiter' ? { max: 100000, duration: 1000 } : undefined,
              });
          const key = `${concurrency}:${variant}`;
          results.set(key, [...(results.get(key) ?? []), rate]);
          process.stdout.write(
            `  concurrency ${concurrency}, round ${round + 1}: ${LABELS[variant]} ${Math.round(rate)} jobs/s\n`,
          );
        }
      }
    }

    const rows: (string | number)[][] = [];
    for (const concurrency of concurrencies) {
      for (const variant of variants) {
        const rates = results.get(`${concurrency}:${variant}`) ?? [];
        rows.push([
          String(concurrency),
          LABELS[variant],
          Math.round(median(rates)),
          Math.round(Math.min(...rates)),
          Math.round(Math.max(...rates)),
        ]);
      }
    }
    process.stdout.write(`\n${table(['concurrency', 'system', 'median jobs/s', 'min', 'max'], rows)}\n\n`);
    for (const concurrency of concurrencies) {
      const berth = median(results.get(`${concurrency}:berth`) ?? [NaN]);
      const bull = median(results.get(`${concurrency}:bullmq`) ?? [NaN]);
      const bulk = median(results.get(`${concurrency}:bullmq-bulk`) ?? [NaN]);
      process.stdout.write(
        `concurrency ${concurrency}: Berth / BullMQ add = ${(berth / bull).toFixed(2)}x` +
          (Number.isNaN(bulk) ? '' : `, Berth / BullMQ addBulk = ${(berth / bulk).toFixed(2)}x`) +
          '\n',
      );
      for (const variant of ['berth-priority', 'berth-priority-queue'] as const) {
        const rate = median(results.get(`${concurrency}:${variant}`) ?? [NaN]);
        if (!Number.isNaN(rate))
          process.stdout.write(
            `concurrency ${concurrency}: ${LABELS[variant]} / Berth = ${(rate / berth).toFixed(2)}x\n`,
          );
      }
      const limiter = median(results.get(`${concurrency}:bullmq-limiter`) ?? [NaN]);
      for (const variant of ['berth-keyed', 'berth-rate', 'berth-keyed-add', 'berth-keyed-add-unfair'] as const) {
        const rate = median(results.get(`${concurrency}:${variant}`) ?? [NaN]);
        if (Number.isNaN(rate)) continue;
        process.stdout.write(
          `concurrency ${concurrency}: flow control: ${LABELS[variant]} / Berth without limits = ${(rate / berth).toFixed(2)}x` +
            (Number.isNaN(limiter) ? '' : `, / BullMQ global limiter = ${(rate / limiter).toFixed(2)}x`) +
            '\n',
        );
      }
    }
  } finally {
    clearTimeout(watchdog);
    await stopServers();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench:jobs failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
