import { cancelJob, listCancellations } from '@berth/jobs';
import { UsageError, type Command } from '../../command';
import { writeList } from '../../output';

/** `berth jobs cancel <queue> <jobId> [--reason text] [--json]` */
export const cancelCommand: Command = {
  path: ['cancel'],
  usage: '<queue> <jobId> [--reason <text>] [--json]',
  description: 'Cancel a job: a waiting one never runs, a running one has its signal fired and is dropped',
  options: { reason: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length !== 2) throw new UsageError('give the queue and the job id');
    const [queue, jobId] = positionals;
    const record = await cancelJob(await context.messaging(), queue, jobId, {
      reason: values.reason as string | undefined,
    });
    writeList(context.stdout, [record], {
      json: values.json === true,
      empty: '',
      headers: ['QUEUE', 'JOB', 'CANCELLED AT', 'REASON'],
      row: (r) => [r.queue, r.jobId, r.cancelledAt, r.reason ?? ''],
      footer: () => '\nCancelled: workers drop it if it waits, abort it if it runs.\n',
    });
    return 0;
  },
};

/** `berth jobs cancelled [--queue q] [--json]` */
export const cancelledCommand: Command = {
  path: ['cancelled'],
  usage: '[--queue <queue>] [--json]',
  description: 'List the cancellations workers still remember (15 days), oldest first',
  options: { queue: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, context) {
    const records = await listCancellations(await context.messaging(), values.queue as string | undefined);
    writeList(context.stdout, records, {
      json: values.json === true,
      empty: 'No cancelled jobs.',
      headers: ['QUEUE', 'JOB', 'CANCELLED AT', 'REASON'],
      row: (r) => [r.queue, r.jobId, r.cancelledAt, r.reason ?? ''],
      footer: (list) => `\n${list.length} cancellation(s).\n`,
    });
    return 0;
  },
};
