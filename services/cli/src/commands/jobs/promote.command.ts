import { promoteJob } from '@berth/jobs';
import { UsageError, type Command } from '../../command';
import { writeList } from '../../output';

/** `berth jobs promote <queue> <jobId> [--json]` */
export const promoteCommand: Command = {
  path: ['promote'],
  usage: '<queue> <jobId> [--json]',
  description: 'Run a delayed job now (a delay, a retry backoff, a rate-limit wait): once, even if it falls due',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length !== 2) throw new UsageError('give the queue and the job id');
    const [queue, jobId] = positionals;
    const promoted = await promoteJob(await context.messaging(), queue, jobId);
    writeList(context.stdout, [promoted], {
      json: values.json === true,
      empty: '',
      headers: ['QUEUE', 'JOB', 'PROMOTED', 'WAS DUE AT'],
      row: (r) => [r.queue, r.jobId, r.promoted ? 'yes' : 'no', r.previousNotBefore ?? ''],
      footer: ([r]) => `\n${r.promoted ? 'Runs now' : 'Nothing changed'}: ${r.reason}.\n`,
    });
    return promoted.promoted ? 0 : 1;
  },
};
