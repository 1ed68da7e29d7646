import { explainJob } from '@berth/jobs';
import { UsageError, type Command } from '../../command';
import { formatJson } from '../../output';

/** `berth jobs why <queue> <jobId> [--json]` */
export const whyCommand: Command = {
  path: ['why'],
  usage: '<queue> <jobId> [--json]',
  description:
    'Say where a job is and why it is not running: delayed, parked for a key, waiting for a worker, cancelled…',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length !== 2) throw new UsageError('give the queue and the job id');
    const explanation = await explainJob(await context.messaging(), positionals[0], positionals[1]);
    context.stdout.write(
      values.json === true
        ? formatJson(explanation)
        : `${explanation.jobId} (${explanation.queue}): ${explanation.state}: ${explanation.reason}\n`,
    );
    return 0;
  },
};
