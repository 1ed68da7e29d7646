import { Queue, Worker } from 'bullmq';
import { addAll } from './add-all';

/** One timed run of BullMQ on the benchmark's Redis. */
export interface BullRoundOptions {
  redisPort: number;
  queue: string;
  concurrency: number;
  jobs: number;
  addWindow: number;
  /** Add with `addBulk` in chunks of `addWindow` instead of one `add` per job. */
  bulk: boolean;
  /** BullMQ's global rate limiter (the only limiter of BullMQ OSS; per-group limits are BullMQ Pro). */
  limiter?: { max: number; duration: number };
}

/**
 * Jobs per second from the first `add` to the last `completed` event (fired once BullMQ moved the job to
 * finished in Redis: removed, as `removeOnComplete: true`, and fsynced by `appendfsync always`).
 */
export async function runBullRound(options: BullRoundOptions): Promise<number> {
  const connection = { host: '127.0.0.1', port: options.redisPort, maxRetriesPerRequest: null };
  const queue = new Queue(options.queue, { connection });
  await queue.waitUntilReady();
  let done = 0;
  let allDone!: () => void;
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const worker = new Worker(options.queue, async () => undefined, {
    connection,
    concurrency: options.concurrency,
    ...(options.limiter ? { limiter: options.limiter } : {}),
  });
  worker.on('completed', () => {
    done += 1;
    if (done === options.jobs) allDone();
  });
  await worker.waitUntilReady();
  const jobOptions = { removeOnComplete: true, removeOnFail: true };
  const started = performance.now();
  if (options.bulk) {
    const chunks = Math.ceil(options.jobs / options.addWindow);
    for (let chunk = 0; chunk < chunks; chunk++) {
      const size = Math.min(options.addWindow, options.jobs - chunk * options.addWindow);
      await queue.addBulk(Array.from({ length: size }, () => ({ name: 'EmptyJob', data: {}, opts: jobOptions })));
    }
  } else {
    await addAll(options.jobs, options.addWindow, () => queue.add('EmptyJob', {}, jobOptions));
  }
  await finished;
  const elapsedMs = performance.now() - started;
  await worker.close();
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  return (options.jobs / elapsedMs) * 1000;
}
