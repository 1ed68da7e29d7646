import { getQueueDepths } from '@berth/jobs';
import type { Command } from '../../command';
import { writeList } from '../../output';

/** `berth jobs queues [--json]` */
export const queuesCommand: Command = {
  path: ['queues'],
  usage: '[--json]',
  description: 'Show each queue: messages waiting, being worked on, redelivered, delayed jobs and dead letters',
  options: { json: { type: 'boolean' } },
  async run({ values }, context) {
    const depths = await getQueueDepths(await context.messaging());
    writeList(context.stdout, depths, {
      json: values.json === true,
      empty: 'No queues yet (a queue appears once a worker of it has started).',
      headers: ['QUEUE', 'PENDING', 'ACK PENDING', 'REDELIVERED', 'DELAYED', 'DEAD'],
      row: (depth) => [
        depth.queue,
        depth.pending,
        depth.ackPending,
        depth.redelivered,
        depth.delayed,
        depth.deadLetters,
      ],
      footer: () => '\nPending, ack pending and redelivered count messages; jobs queued in one burst may share one.\n',
    });
    return 0;
  },
};
