import { listLimitedKeys } from '@berth/jobs';
import type { Command } from '../../command';
import { formatJson, formatTable } from '../../output';

/** `berth jobs limited [--queue q] [--json]` */
export const limitedCommand: Command = {
  path: ['limited'],
  usage: '[--queue <queue>] [--json]',
  description: 'Keys under a per-key concurrency or rate limit: jobs running, jobs waiting, starts in the window',
  options: { queue: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, context) {
    const limited = await listLimitedKeys(await context.messaging(), values.queue as string | undefined);
    if (values.json === true) {
      context.stdout.write(formatJson(limited));
      return 0;
    }
    if (limited.concurrency.length === 0 && limited.rates.length === 0) {
      context.stdout.write('No key is under a limit.\n');
      return 0;
    }
    if (limited.concurrency.length > 0) {
      context.stdout.write(
        formatTable(
          ['QUEUE', 'KEY', 'LIMIT', 'RUNNING', 'WAITING'],
          limited.concurrency.map((s) => [s.queue, s.key, s.limit, s.running.length, s.waiting]),
        ),
      );
      context.stdout.write('\n');
    }
    if (limited.rates.length > 0) {
      context.stdout.write(
        formatTable(
          ['QUEUE', 'RATE KEY', 'STARTS IN WINDOW', 'REFUSED JOBS WAIT UNTIL'],
          limited.rates.map((r) => [
            r.queue,
            r.key ?? '(whole queue)',
            r.startsInWindow,
            r.waitingUntil ? new Date(r.waitingUntil).toISOString() : '',
          ]),
        ),
      );
      context.stdout.write('\n');
    }
    return 0;
  },
};
