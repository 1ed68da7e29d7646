import { listDeadLetters } from '@berth/jobs';
import type { Command } from '../../command';
import { formatJson, formatTable, truncate } from '../../output';

/** `berth jobs dead list [--queue q] [--limit n] [--json]` */
export const deadListCommand: Command = {
  path: ['dead', 'list'],
  usage: '[--queue <queue>] [--limit <n>] [--json]',
  description: 'List jobs that failed for good (most recent last), with their error and attempts',
  options: { queue: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, context) {
    const limit = values.limit === undefined ? 100 : Number(values.limit);
    const letters = await listDeadLetters(await context.messaging(), { queue: values.queue as string | undefined, limit });
    if (values.json) {
      context.stdout.write(formatJson(letters));
      return 0;
    }
    if (letters.length === 0) {
      context.stdout.write('No dead letters.\n');
      return 0;
    }
    context.stdout.write(formatTable(
      ['ID', 'QUEUE', 'JOB', 'JOB ID', 'REASON', 'ATTEMPTS', 'FAILED AT', 'ERROR'],
      letters.map((letter) => [
        letter.id, letter.queue, letter.name, letter.jobId, letter.reason, letter.attempts, letter.failedAt,
        truncate(`${letter.error.name}: ${letter.error.message}`, 80),
      ]),
    ));
    context.stdout.write(`\n${letters.length} dead letter(s). Replay one with: berth jobs dead replay <ID>\n`);
    return 0;
  },
};
