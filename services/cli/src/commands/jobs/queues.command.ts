import { getQueueDepths } from '@berth/jobs';
import type { Command } from '../../command';
import { formatJson, formatTable } from '../../output';

/** `berth jobs queues [--json]` */
export const queuesCommand: Command = {
  path: ['queues'],
  usage: '[--json]',
  description: 'Show each queue: messages waiting, being worked on, redelivered, delayed jobs and dead letters',
  options: { json: { type: 'boolean' } },
  async run({ values }, context) {
    const depths = await getQueueDepths(await context.messaging());
    if (values.json) {
      context.stdout.write(formatJson(depths));
      return 0;
    }
    if (depths.length === 0) {
      context.stdout.write('No queues yet (a queue appears once a worker of it has started).\n');
      return 0;
    }
    context.stdout.write(formatTable(
      ['QUEUE', 'PENDING', 'ACK PENDING', 'REDELIVERED', 'DELAYED', 'DEAD'],
      depths.map((depth) => [depth.queue, depth.pending, depth.ackPending, depth.redelivered, depth.delayed, depth.deadLetters]),
    ));
    context.stdout.write('\nPending, ack pending and redelivered count messages; jobs queued in one burst may share one.\n');
    return 0;
  },
};
