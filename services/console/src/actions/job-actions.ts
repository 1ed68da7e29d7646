import { z } from 'zod';
import { cronTickMessage, listCrons } from '@berth/cron';
import {
  cancelJob,
  explainJob,
  listDeadLetters,
  promoteJob,
  replayAllDeadLetters,
  replayDeadLetter,
  type JobExplanation,
} from '@berth/jobs';
import { publishMessage } from '@berth/messaging';
import { actorName } from '../auth/roles';
import { ConsoleError } from '../errors';
import { cronInWords } from '../jobs/cron-in-words';
import { counted, defineAction } from './console-action';

/** Where a job is past cancelling: already over, or never found. */
const NOT_CANCELLABLE: ReadonlySet<JobExplanation['state']> = new Set([
  'not-found',
  'cancelled',
  'dead-lettered',
  'completed',
]);

const replayParams = z.union([
  z.object({ ids: z.array(z.number().int().positive()).min(1).max(500) }).strict(),
  z.object({ all: z.literal(true), queue: z.string().min(1).max(128).optional() }).strict(),
]);

/** `jobs.replay-dead`: queue dead-lettered jobs again with full attempts (a selection, or all of a queue or of every queue). */
export const replayDeadLettersAction = defineAction({
  name: 'jobs.replay-dead',
  audience: 'console',
  params: replayParams,
  async preview(params, dependencies) {
    const letters = await listDeadLetters(dependencies.messaging, {
      queue: 'all' in params ? params.queue : undefined,
      limit: 10_000,
    });
    const chosen = letters.filter(
      (letter) => !letter.unreadable && ('all' in params || params.ids.includes(letter.id)),
    );
    const where = 'all' in params ? (params.queue ? ` of queue ${params.queue}` : ' of every queue') : ' selected';
    return {
      count: chosen.length,
      summary: `Queues ${counted(chosen.length, 'dead-lettered job')}${where} again with full attempts, and removes them from the dead letters`,
      items: chosen.slice(0, 20).map((letter) => ({
        id: letter.id,
        queue: letter.queue,
        name: letter.name,
        error: `${letter.error.name}: ${letter.error.message}`,
      })),
    };
  },
  async execute(params, dependencies) {
    const results =
      'all' in params
        ? await replayAllDeadLetters(dependencies.messaging, dependencies.jobProducer, { queue: params.queue })
        : await replayEach(params.ids, (id) => replayDeadLetter(dependencies.messaging, dependencies.jobProducer, id));
    return { summary: `Queued ${counted(results.length, 'job')} again`, result: { replayed: results } };
  },
});

/** Runs one replay after the other: the first failure stops the rest, as `replayAllDeadLetters` does. */
async function replayEach<T>(ids: number[], replay: (id: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (const id of ids) results.push(await replay(id));
  return results;
}

/**
 * `crons.run-now`: one extra tick of a registered cron, now: the job the scheduler's leader would emit
 * (`cronTickMessage`, id `cron:<name>:<now>`), published to its queue, so a worker runs it as it runs any tick. The
 * cron's own schedule is left as it is.
 */
export const runCronNowAction = defineAction({
  name: 'crons.run-now',
  audience: 'console',
  params: z.object({ name: z.string().min(1).max(256) }).strict(),
  async preview(params, dependencies) {
    const cron = (await listCrons({ messaging: dependencies.messaging })).find((row) => row.name === params.name);
    if (!cron) return { count: 0, summary: `No cron ${params.name} is registered`, items: [] };
    return {
      count: 1,
      summary: `Runs ${cron.name} once now, on queue ${cron.queue}, besides its schedule (${cronInWords(cron.pattern, cron.timeZone)})`,
      items: [{ name: cron.name, queue: cron.queue, lastTick: cron.lastTick, nextTick: cron.nextTick }],
    };
  },
  async execute(params, dependencies) {
    const cron = (await listCrons({ messaging: dependencies.messaging })).find((row) => row.name === params.name);
    if (!cron) throw new ConsoleError(404, 'not_found', `No cron ${params.name} is registered`);
    // Whole seconds: the tick id is then the one a scheduler would give a tick at that second.
    const tick = new Date(Math.floor(dependencies.clock.now().getTime() / 1000) * 1000);
    const message = cronTickMessage({ name: cron.name, queue: cron.queue }, tick);
    const ack = await publishMessage(dependencies.messaging.js, message);
    return {
      summary: `Queued a run of ${cron.name} now (job ${message.msgId})`,
      result: { jobId: message.msgId, streamSequence: ack.seq },
    };
  },
});

/**
 * `jobs.cancel`: cancel a waiting, running or delayed job (`cancelJob`, as `berth jobs cancel` does): a worker drops
 * it when its turn comes, or stops it between attempts. The preview says where the job is (`explainJob`).
 */
export const cancelJobAction = defineAction({
  name: 'jobs.cancel',
  audience: 'console',
  params: z
    .object({
      queue: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/),
      jobId: z.string().min(1).max(256),
      reason: z.string().max(500).optional(),
    })
    .strict(),
  async preview(params, dependencies) {
    const where = await explainJob(dependencies.messaging, params.queue, params.jobId);
    const cancellable = !NOT_CANCELLABLE.has(where.state);
    return {
      count: cancellable ? 1 : 0,
      summary: cancellable
        ? `Cancels job ${params.jobId} of ${params.queue}, which ${where.reason}`
        : `Nothing to cancel: job ${params.jobId} is ${where.state} (${where.reason})`,
      items: [where],
    };
  },
  async execute(params, dependencies, actor) {
    const record = await cancelJob(dependencies.messaging, params.queue, params.jobId, {
      reason: params.reason ?? `cancelled from the console by ${actorName(actor)}`,
    });
    return { summary: `Cancelled job ${params.jobId} of ${params.queue}`, result: record };
  },
});

/**
 * `jobs.promote`: run a delayed job (a delay, a retry's backoff, a rate limit's wait) now (`promoteJob`, as
 * `berth jobs promote` does): the server releases it to the queue's workers as if it had fallen due. Exactly once:
 * a job that fell due meanwhile is not run a second time. The preview says where the job is (`explainJob`).
 */
export const promoteJobAction = defineAction({
  name: 'jobs.promote',
  audience: 'console',
  params: z
    .object({
      queue: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/),
      jobId: z.string().min(1).max(256),
    })
    .strict(),
  async preview(params, dependencies) {
    const where = await explainJob(dependencies.messaging, params.queue, params.jobId);
    return {
      count: where.state === 'delayed' ? 1 : 0,
      summary:
        where.state === 'delayed'
          ? `Runs job ${params.jobId} of ${params.queue} now, which ${where.reason}`
          : `Nothing to run now: job ${params.jobId} is ${where.state} (${where.reason})`,
      items: [where],
    };
  },
  async execute(params, dependencies) {
    const promoted = await promoteJob(dependencies.messaging, params.queue, params.jobId, {
      clock: dependencies.clock,
    });
    return {
      summary: promoted.promoted
        ? `Job ${params.jobId} of ${params.queue} runs now`
        : `Nothing was changed: ${promoted.reason}`,
      result: promoted,
    };
  },
});
