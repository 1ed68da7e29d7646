import { webhookProviderCoverage } from '@berth/messaging';
import type { Command } from '../../command';
import { writeList } from '../../output';

/** `berth webhooks providers [<provider>…] [--json]` */
export const webhooksProvidersCommand: Command = {
  path: ['providers'],
  usage: '[<provider>…] [--json]',
  description:
    'List the webhook providers with events stored in WEBHOOKS (and those named), the durable consumers that read each, ' +
    'and how many messages each has stored; exits 1 when a provider has no consumer, since its events wait for nobody',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    const messaging = await context.messaging();
    const coverage = await webhookProviderCoverage(messaging.jsm, positionals);
    writeList(context.stdout, coverage, {
      json: values.json === true,
      empty: 'No webhook provider has events stored.',
      headers: ['PROVIDER', 'CONSUMERS', 'STORED'],
      row: (entry) => [
        entry.provider,
        entry.consumers.length > 0 ? entry.consumers.join(', ') : 'NONE',
        String(entry.storedMessages),
      ],
      footer: (entries) => {
        const unread = entries.filter((entry) => entry.consumers.length === 0).map((entry) => entry.provider);
        return unread.length > 0
          ? `\nNo consumer reads ${unread.join(', ')}: start the worker that handles it, or its events expire unprocessed with the stream's max age.\n`
          : '';
      },
    });
    return coverage.some((entry) => entry.consumers.length === 0) ? 1 : 0;
  },
};
