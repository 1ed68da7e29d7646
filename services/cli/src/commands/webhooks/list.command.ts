import {
  inboxCollections,
  listWebhookEvents,
  WEBHOOK_EVENT_STATES,
  type WebhookEventState,
  type WebhookEventSummary,
} from '@berth/inbox';
import { UsageError, type Command } from '../../command';
import { formatJson, formatTable, truncate } from '../../output';
import { isoOrDash } from './format';

/** The columns after PROVIDER, EVENT ID, TYPE, RECEIVED AT, ATTEMPTS, per state. */
const STATE_COLUMNS: Record<WebhookEventState, { headers: string[]; cells(event: WebhookEventSummary): string[] }> = {
  unprocessed: {
    headers: ['NEXT ATTEMPT', 'LAST ERROR'],
    cells: (event) => [
      event.roundEndedAt && !event.nextAttemptAt
        ? `round ended ${event.roundEndedAt.toISOString()}`
        : isoOrDash(event.nextAttemptAt),
      truncate(event.lastError ?? '-', 80),
    ],
  },
  abandoned: {
    headers: ['SET ASIDE AT', 'LAST ERROR'],
    cells: (event) => [isoOrDash(event.abandonedAt), truncate(event.lastError ?? '-', 80)],
  },
  processed: { headers: ['PROCESSED AT'], cells: (event) => [isoOrDash(event.processedAt)] },
};

/** `berth webhooks list [--state unprocessed|abandoned|processed] [--provider p] [--limit n] [--json]` */
export const webhooksListCommand: Command = {
  path: ['list'],
  usage: '[--state unprocessed|abandoned|processed] [--provider <provider>] [--limit <n>] [--json]',
  description:
    'List inbox events in one state (default unprocessed: waiting or retrying, not set aside; abandoned: set aside; ' +
    'processed: done), oldest first (processed: latest first), without their payloads',
  options: {
    state: { type: 'string' },
    provider: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals }, context) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const state = (values.state ?? 'unprocessed') as WebhookEventState;
    if (!WEBHOOK_EVENT_STATES.includes(state))
      throw new UsageError(`--state must be one of ${WEBHOOK_EVENT_STATES.join(', ')}`);
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit <= 0)
      throw new UsageError(`--limit must be a positive whole number, got ${String(values.limit)}`);
    const provider = values.provider as string | undefined;
    const { events, total } = await listWebhookEvents({
      inbox: inboxCollections(await context.db()),
      state,
      provider,
      limit,
    });
    if (values.json) {
      context.stdout.write(formatJson({ state, total, events }));
      return 0;
    }
    const what = `${state === 'abandoned' ? 'set-aside' : state} webhook event(s)${provider ? ` of ${provider}` : ''}`;
    if (events.length === 0) {
      context.stdout.write(`No ${what}.\n`);
      return 0;
    }
    const columns = STATE_COLUMNS[state];
    context.stdout.write(
      formatTable(
        ['PROVIDER', 'EVENT ID', 'TYPE', 'RECEIVED AT', 'ATTEMPTS', ...columns.headers],
        events.map((event) => [
          event.provider,
          event.eventId,
          event.type,
          event.receivedAt.toISOString(),
          event.attempts,
          ...columns.cells(event),
        ]),
      ),
    );
    context.stdout.write(`\n${events.length} of ${total} ${what}.\n`);
    if (state === 'abandoned')
      context.stdout.write(
        'Fix the cause, then run `berth webhooks retry-abandoned` to give them their attempts back.\n',
      );
    return 0;
  },
};
