import { listDeadLetters } from '@berth/jobs';
import type { Command } from '../../command';
import { truncate, writeList } from '../../output';

/** `berth jobs dead list [--queue q] [--limit n] [--json]` */
export const deadListCommand: Command = {
  path: ['dead', 'list'],
  usage: '[--queue <queue>] [--limit <n>] [--json]',
  description: 'List jobs that failed for good (most recent last), with their error and attempts',
  options: { queue: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, context) {
    const limit = values.limit === undefined ? 100 : Number(values.limit);
    const letters = await listDeadLetters(await context.messaging(), {
      queue: values.queue as string | undefined,
      limit,
    });
    writeList(context.stdout, letters, {
      json: values.json === true,
      empty: 'No dead letters.',
      headers: ['ID', 'QUEUE', 'JOB', 'JOB ID', 'REASON', 'ATTEMPTS', 'FAILED AT', 'ERROR'],
      row: (letter) => [
        letter.id,
        letter.queue,
        letter.name,
        letter.jobId,
        letter.reason,
        letter.attempts,
        letter.failedAt,
        truncate(`${letter.error.name}: ${letter.error.message}`, 80),
      ],
      footer: (listed) => `\n${listed.length} dead letter(s). Replay one with: berth jobs dead replay <ID>\n`,
    });
    return 0;
  },
};
