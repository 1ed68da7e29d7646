import { inboxCollections, retryAbandonedWebhookEvents } from '@berth/inbox';
import { UsageError, type Command } from '../../command';
import { formatJson, formatTable } from '../../output';

/** `berth webhooks retry-abandoned [--provider p] [--json]` */
export const webhooksRetryAbandonedCommand: Command = {
  path: ['retry-abandoned'],
  usage: '[--provider <provider>] [--json]',
  description:
    'Give every set-aside event its attempts back and publish it again now; prints how many it reopened. ' +
    'Running it again changes nothing',
  options: { provider: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const result = await retryAbandonedWebhookEvents({
      inbox: inboxCollections(await context.db()),
      messaging: await context.messaging(),
      provider: values.provider as string | undefined,
      owner: `berth-cli:retry-abandoned:${process.pid}`,
      logger: context.logger,
    });
    const code = result.publishFailed > 0 ? 1 : 0;
    if (values.json) {
      context.stdout.write(formatJson(result));
      return code;
    }
    if (result.events.length > 0) {
      context.stdout.write(
        formatTable(
          ['PROVIDER', 'EVENT ID', 'TYPE', 'PUBLISHED AS'],
          result.events.map((event) => [event.provider, event.eventId, event.type, event.msgId ?? '-']),
        ),
      );
      context.stdout.write('\n');
    }
    context.stdout.write(
      `Reopened ${result.reopened} set-aside webhook event(s); ${result.requeued} published again.\n`,
    );
    if (result.publishFailed > 0)
      context.stdout.write(
        `${result.publishFailed} could not be published: the recovery cron requeues them within about 20 minutes.\n`,
      );
    if (result.busy > 0)
      context.stdout.write(`${result.busy} set-aside event(s) were busy (being alerted on); run the command again.\n`);
    return code;
  },
};
