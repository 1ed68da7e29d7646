import { listCrons } from '@berth/cron';
import { UsageError, type Command } from '../../command';
import { writeList } from '../../output';

/** `berth crons list [--json]` */
export const cronsListCommand: Command = {
  path: ['list'],
  usage: '[--json]',
  description:
    'List every registered cron: schedule, time zone, last tick emitted, next tick, and the scheduler replica leading now',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const rows = await listCrons({ messaging: await context.messaging() });
    writeList(context.stdout, rows, {
      json: values.json === true,
      empty: 'No crons registered (a service registers its crons when it starts).',
      headers: ['NAME', 'SCHEDULE', 'ZONE', 'LAST TICK', 'NEXT TICK', 'QUEUE', 'OWNER'],
      row: (row) => [
        row.name,
        row.pattern,
        row.timeZone,
        row.lastTick?.toISOString() ?? '-',
        row.error ? `error: ${row.error}` : (row.nextTick?.toISOString() ?? 'never'),
        row.queue,
        row.owner,
      ],
      footer: (listed) =>
        `\nLeader: ${listed[0].leader ?? 'none (no scheduler holds the lease: ticks are not being emitted)'}\n`,
    });
    return 0;
  },
};
