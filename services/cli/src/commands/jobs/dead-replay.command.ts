import { createJobProducer, replayAllDeadLetters, replayDeadLetter, type ReplayResult } from '@berth/jobs';
import { UsageError, type Command } from '../../command';
import { writeList } from '../../output';

/** `berth jobs dead replay <id|--all> [--queue q] [--json]` */
export const deadReplayCommand: Command = {
  path: ['dead', 'replay'],
  usage: '<id> | --all [--queue <queue>] [--json]',
  description: 'Queue dead-lettered jobs again (full attempts), and remove them from the dead letters',
  options: { all: { type: 'boolean' }, queue: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (values.all === true && positionals.length > 0) throw new UsageError('give either an id or --all');
    if (values.all !== true && positionals.length !== 1)
      throw new UsageError('give the id of a dead letter (see berth jobs dead list), or --all');
    if (values.all !== true && values.queue !== undefined) throw new UsageError('--queue goes with --all');
    const id = Number(positionals[0]);
    if (values.all !== true && (!Number.isInteger(id) || id <= 0))
      throw new UsageError(`not a dead letter id: ${positionals[0]}`);
    const messaging = await context.messaging();
    // The job streams exist (the services create them with their STREAM_REPLICAS): replaying must not provision them
    // again with the CLI's defaults, which would bring an R3 stream down to R1.
    const producer = createJobProducer({
      messaging,
      logger: context.logger,
      infrastructure: { provisionStreams: false },
    });
    const results: ReplayResult[] =
      values.all === true
        ? await replayAllDeadLetters(messaging, producer, { queue: values.queue as string | undefined })
        : [await replayDeadLetter(messaging, producer, id)];
    writeList(context.stdout, results, {
      json: values.json === true,
      empty: 'No dead letters to replay.',
      headers: ['ID', 'QUEUE', 'JOB', 'FAILED JOB', 'QUEUED AS'],
      row: (result) => [
        result.id,
        result.queue,
        result.name,
        result.replayOf,
        result.deduplicated ? `${result.jobId} (already queued)` : result.jobId,
      ],
      footer: (replayed) => `\n${replayed.length} job(s) queued again.\n`,
    });
    return 0;
  },
};
