import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import { z } from 'zod';
import { cronTickId, listCrons, readLease, resolveBuckets } from '@berth/cron';
import { explainJob, getQueueDepths, listCompletedJobs, listDeadLetters } from '@berth/jobs';
import { ConsoleError } from '../errors';
import type { ConsoleDependencies } from '../dependencies';
import { cronInWords } from '../jobs/cron-in-words';
import { listQueueJobs } from '../jobs/queue-jobs';
import { queryOf } from './query';

/**
 * `GET /api/jobs/queues` (depths), `GET /api/jobs/queues/:queue/jobs` (its waiting, running and delayed jobs),
 * `GET /api/jobs/queues/:queue/completed?limit=` (its last completed jobs, newest first, from `JOBS_COMPLETED`),
 * `GET /api/jobs/dead?queue=` (dead letters with data and error), `GET /api/jobs/dead/:id`, `GET /api/jobs/crons` (pattern and it in words, zone, last and next tick and
 * where the last tick's job is, leader).
 */
export function jobRoutes(dependencies: ConsoleDependencies): Router {
  const router = createRouter({ prefix: '/api/jobs' });
  router.get('/queues', async (ctx) => {
    ctx.body = { queues: await getQueueDepths(dependencies.messaging) };
  });
  router.get('/queues/:queue/jobs', async (ctx) => {
    ctx.body = await listQueueJobs(dependencies.messaging, queueParam(ctx.params.queue));
  });
  router.get('/queues/:queue/completed', async (ctx) => {
    const queue = queueParam(ctx.params.queue);
    const { limit } = queryOf(ctx, z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() }));
    ctx.body = { queue, completed: await listCompletedJobs(dependencies.messaging, queue, { limit: limit ?? 50 }) };
  });
  router.get('/dead', async (ctx) => {
    const { queue, limit } = queryOf(
      ctx,
      z.object({
        queue: z
          .string()
          .max(128)
          .optional()
          .transform((value) => value || undefined),
        limit: z.coerce.number().int().min(1).max(5000).optional(),
      }),
    );
    ctx.body = {
      deadLetters: (await listDeadLetters(dependencies.messaging, { queue, limit: limit ?? 500 })).reverse(),
    };
  });
  router.get('/dead/:id', async (ctx) => {
    const id = Number(ctx.params.id);
    const letter = (await listDeadLetters(dependencies.messaging, { limit: 10_000 })).find(
      (candidate) => candidate.id === id,
    );
    if (!letter) throw new ConsoleError(404, 'not_found', `No dead letter ${ctx.params.id}`);
    ctx.body = letter;
  });
  router.get('/crons', async (ctx) => {
    const source = { messaging: dependencies.messaging };
    const [crons, lease] = await Promise.all([
      listCrons(source),
      resolveBuckets(source).then((buckets) => readLease(buckets.lease)),
    ]);
    // The last tick's job, where `explainJob` finds it: waiting, with a worker, dead-lettered, completed, or not
    // found (a run that finished before the completed records kept go back).
    const lastRuns = await Promise.all(
      crons.map((cron) =>
        cron.lastTick
          ? explainJob(dependencies.messaging, cron.queue, cronTickId(cron.name, cron.lastTick)).catch(() => null)
          : Promise.resolve(null),
      ),
    );
    ctx.body = {
      crons: crons.map((cron, index) => ({
        ...cron,
        words: cronInWords(cron.pattern, cron.timeZone),
        lastRun: lastRuns[index] && { state: lastRuns[index].state, reason: lastRuns[index].reason },
      })),
      leader: lease ?? null,
    };
  });
  return router;
}

/** A queue name from the path, or a 400. */
function queueParam(queue: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(queue)) throw new ConsoleError(400, 'invalid', `Not a queue name: ${queue}`);
  return queue;
}
