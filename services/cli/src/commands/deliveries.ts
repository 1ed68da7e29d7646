import {
  listDeliveries,
  outboundCollections,
  recoverEndpoint,
  replayDelivery,
  type DeliveryStatus,
  type ReplayDependencies,
} from '@berth/outbound';
import { UsageError, type Command, type CommandContext, type CommandGroup } from '../command';
import { formatJson, truncate, writeList } from '../output';

const STATUSES: DeliveryStatus[] = ['pending', 'delivered', 'failed', 'skipped'];

async function replayDependencies(context: CommandContext): Promise<ReplayDependencies> {
  return { js: (await context.messaging()).js, collections: outboundCollections(await context.db()) };
}

function parseSince(value: unknown): Date | undefined {
  if (value === undefined) return undefined;
  const since = new Date(String(value));
  if (Number.isNaN(since.getTime())) throw new UsageError(`--since must be a date (ISO 8601), got ${String(value)}`);
  return since;
}

const listCommand: Command = {
  path: ['list'],
  usage:
    '[--endpoint <id>] [--workspace <id>] [--event <id>] [--status pending|delivered|failed|skipped] [--since <iso>] [--limit <n>] [--json]',
  description:
    'The delivery log, newest first: status, attempts, last response (--json: every attempt with its response body)',
  options: {
    endpoint: { type: 'string' },
    workspace: { type: 'string' },
    event: { type: 'string' },
    status: { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals }, context) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const status = values.status as DeliveryStatus | undefined;
    if (status !== undefined && !STATUSES.includes(status))
      throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
    const limit = values.limit === undefined ? 50 : Number(values.limit);
    if (!Number.isInteger(limit) || limit <= 0)
      throw new UsageError(`--limit must be a positive whole number, got ${String(values.limit)}`);
    const deliveries = await listDeliveries(
      { collections: outboundCollections(await context.db()) },
      {
        endpointId: values.endpoint as string | undefined,
        workspaceId: values.workspace as string | undefined,
        eventId: values.event as string | undefined,
        status,
        since: parseSince(values.since),
        limit,
      },
    );
    writeList(context.stdout, deliveries, {
      json: values.json === true,
      empty: 'No deliveries.',
      headers: ['DELIVERY (webhook-id)', 'ENDPOINT', 'TYPE', 'STATUS', 'ATTEMPTS', 'CREATED AT', 'LAST RESPONSE'],
      row: (delivery) => {
        const last = [...delivery.log].reverse().find((entry) => entry.kind === 'attempt');
        const response = last
          ? `${last.statusCode ?? last.outcome} ${truncate(last.error ?? last.responseBody ?? '', 40)}`.trim()
          : '-';
        return [
          delivery.id,
          delivery.endpointId,
          delivery.eventType,
          delivery.status,
          delivery.attemptCount,
          delivery.createdAt,
          response,
        ];
      },
    });
    return 0;
  },
};

const replayCommand: Command = {
  path: ['replay'],
  usage: '<deliveryId> [--json]',
  description:
    'Send a delivery again (same webhook-id, a fresh run of the retry schedule); refused while it is pending',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length !== 1) throw new UsageError('give the delivery id (see berth deliveries list)');
    const replayed = await replayDelivery(await replayDependencies(context), positionals[0]);
    context.stdout.write(
      values.json ? formatJson(replayed) : `Delivery ${replayed.deliveryId} queued again (replay ${replayed.round}).\n`,
    );
    return 0;
  },
};

const recoverCommand: Command = {
  path: ['recover'],
  usage: '<endpointId> --since <iso> [--json]',
  description:
    'Replay every failed or skipped delivery of an endpoint created since a time (after fixing or re-enabling it)',
  options: { since: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    if (positionals.length !== 1) throw new UsageError('give the endpoint id');
    const since = parseSince(values.since);
    if (!since) throw new UsageError('--since is required');
    const replayed = await recoverEndpoint(await replayDependencies(context), positionals[0], since);
    context.stdout.write(
      values.json
        ? formatJson(replayed)
        : `${replayed.length} deliver${replayed.length === 1 ? 'y' : 'ies'} of ${positionals[0]} since ${since.toISOString()} queued again.\n`,
    );
    return 0;
  },
};

/** `berth deliveries …`: the outbound delivery log, replays and recovery. */
export const deliveriesCommands: CommandGroup = {
  name: 'deliveries',
  description: 'Outbound webhook deliveries: the delivery log, replay one, recover an endpoint since a time',
  commands: [listCommand, replayCommand, recoverCommand],
};
