import { inboxCollections, redeliverWebhookEvent } from '@berth/inbox';
import { UsageError, type Command } from '../../command';
import { formatJson } from '../../output';

/** `berth webhooks redeliver <provider> <eventId> [--json]` */
export const webhooksRedeliverCommand: Command = {
  path: ['redeliver'],
  usage: '<provider> <eventId> [--json]',
  description:
    'Publish one stored event again now, under a new message id (a set-aside event gets its attempts back). ' +
    'Refused for an unknown event, a processed one (the consumer would skip it) and one being processed right now',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length !== 2)
      throw new UsageError('give the provider and the provider event id, e.g. stripe evt_123');
    const [provider, eventId] = positionals;
    const result = await redeliverWebhookEvent({
      inbox: inboxCollections(await context.db()),
      messaging: await context.messaging(),
      provider,
      eventId,
      owner: `berth-cli:redeliver:${process.pid}`,
    });
    const code = result.status === 'redelivered' ? 0 : 1;
    if (values.json) {
      context.stdout.write(formatJson(result));
      return code;
    }
    const name = `${provider}:${eventId}`;
    switch (result.status) {
      case 'redelivered':
        context.stdout.write(
          `Redelivered ${name} as ${result.msgId} (WEBHOOKS sequence ${result.streamSequence})${result.reopened ? '; it was set aside and got its attempts back' : ''}.\n`,
        );
        break;
      case 'unknown':
        context.stderr.write(
          `No webhook event ${name} in the inbox: nothing to redeliver (resend it from the provider's dashboard).\n`,
        );
        break;
      case 'processed':
        context.stderr.write(
          `Webhook event ${name} was already processed at ${result.processedAt.toISOString()}: not redelivered, the consumer would skip it.\n`,
        );
        break;
      case 'busy':
        context.stderr.write(
          `Webhook event ${name} is being processed right now (by ${result.holder}): not redelivered; try again in ${Math.ceil(result.remainingMs / 1000)} s if it is still unprocessed.\n`,
        );
        break;
    }
    return code;
  },
};
