import { listCompletedJobs } from '@berth/jobs';
import { UsageError, type Command } from '../../command';
import { writeList } from '../../output';

/** `berth jobs completed <queue> [--limit n] [--json]` */
export const completedCommand: Command = {
  path: ['completed'],
  usage: '<queue> [--limit <n>] [--json]',
  description: 'List the last completed jobs of a queue, newest first (JOBS_COMPLETED keeps 100 a queue, 7 days)',
  options: { limit: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length !== 1) throw new UsageError('give the queue');
    const limit = values.limit === undefined ? 20 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive whole number');
    const completed = await listCompletedJobs(await context.messaging(), positionals[0], { limit });
    writeList(context.stdout, completed, {
      json: values.json === true,
      empty: `No completed job of ${positionals[0]} recorded.`,
      headers: ['COMPLETED AT', 'JOB', 'NAME', 'ATTEMPT', 'TOOK'],
      row: (r) => [r.completedAt, r.jobId, r.name, `${r.attempt}/${r.retryLimit + 1}`, `${r.durationMs} ms`],
      footer: (list) => `\n${list.length} completed job(s).\n`,
    });
    return 0;
  },
};
