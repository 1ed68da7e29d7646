import type { CommandGroup } from '../command';
import { webhooksListCommand } from './webhooks/list.command';
import { webhooksProvidersCommand } from './webhooks/providers.command';
import { webhooksRedeliverCommand } from './webhooks/redeliver.command';
import { webhooksRetryAbandonedCommand } from './webhooks/retry-abandoned.command';
import { webhooksShowCommand } from './webhooks/show.command';

/** `berth webhooks …`: the webhook inbox (MongoDB `webhookEvents`; `MONGO_URL`, `MONGO_DB`). */
export const webhooksCommands: CommandGroup = {
  name: 'webhooks',
  description:
    'The webhook inbox: list events by state, show one with every attempt and how it ended, reopen set-aside events, redeliver one event; which providers have a consumer',
  commands: [
    webhooksListCommand,
    webhooksShowCommand,
    webhooksRetryAbandonedCommand,
    webhooksRedeliverCommand,
    webhooksProvidersCommand,
  ],
};
