import {
  announceEndpointChange,
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  outboundCollections,
  rotateEndpointSecret,
  setEndpointEnabled,
  toEndpointView,
  updateEndpoint,
  type EndpointChanges,
  type EndpointOperationDependencies,
  type EndpointView,
} from '@berth/outbound';
import { UsageError, type Command, type CommandContext, type CommandGroup } from '../command';
import { formatJson, formatTable, truncate, writeList } from '../output';

/**
 * What the endpoint operations need from the CLI: the outbound collections, and an announcement to the dispatchers
 * after a change (if NATS is unreachable the change still holds: dispatchers reload every few seconds).
 */
async function operations(context: CommandContext): Promise<EndpointOperationDependencies> {
  return {
    collections: outboundCollections(await context.db()),
    onChanged: async (endpointId) => {
      try {
        await announceEndpointChange((await context.messaging()).nc, endpointId);
      } catch (error) {
        context.logger.warn(
          { err: error },
          'Could not announce the change; dispatchers pick it up at their next reload',
        );
      }
    },
  };
}

function onePositional(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(`give the ${what}`);
  return positionals[0];
}

function list(value: unknown): string[] | undefined {
  return typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : undefined;
}

function rateLimit(value: unknown): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const rate = Number(value);
  if (!Number.isFinite(rate) || rate <= 0)
    throw new UsageError(
      `--rate-limit must be a positive number of deliveries a second, or none; got ${String(value)}`,
    );
  return rate;
}

function writeEndpoint(
  context: CommandContext,
  endpoint: EndpointView,
  json: boolean,
  extra: Record<string, unknown> = {},
): number {
  if (json) {
    context.stdout.write(formatJson({ ...endpoint, ...extra }));
    return 0;
  }
  context.stdout.write(
    formatTable(
      ['FIELD', 'VALUE'],
      Object.entries({ ...endpoint, ...extra }).map(([key, value]) => [
        key,
        Array.isArray(value) ? value.join(',') || '(all)' : String(value),
      ]),
    ),
  );
  return 0;
}

const listCommand: Command = {
  path: ['list'],
  usage: '[--workspace <id>] [--json]',
  description: 'List endpoints (of one workspace), with their state, limits and failure run',
  options: { workspace: { type: 'string' }, json: { type: 'boolean' } },
  async run({ values }, context) {
    const endpoints = (
      await listEndpoints(await operations(context), { workspaceId: values.workspace as string | undefined })
    ).map((endpoint) => toEndpointView(endpoint, new Date()));
    writeList(context.stdout, endpoints, {
      json: values.json === true,
      empty: 'No endpoints.',
      headers: ['ID', 'WORKSPACE', 'STATE', 'URL', 'TYPES', 'RATE/S', 'ORDERED', 'FAILING SINCE'],
      row: (endpoint) => [
        endpoint.id,
        endpoint.workspaceId,
        endpoint.enabled ? 'enabled' : `disabled (${endpoint.disabledReason})`,
        truncate(endpoint.url, 60),
        endpoint.eventTypes.join(',') || '(all)',
        endpoint.rateLimitPerSecond ?? '-',
        endpoint.ordered ? 'yes' : 'no',
        endpoint.failingSince ?? '-',
      ],
    });
    return 0;
  },
};

const createCommand: Command = {
  path: ['create'],
  usage:
    '--workspace <id> --url <url> [--event-types a,b] [--rate-limit <n>] [--ordered] [--description <text>] [--json]',
  description: 'Create an endpoint; prints its signing secret (shown once)',
  options: {
    workspace: { type: 'string' },
    url: { type: 'string' },
    'event-types': { type: 'string' },
    'rate-limit': { type: 'string' },
    ordered: { type: 'boolean' },
    description: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals }, context) {
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    if (typeof values.workspace !== 'string' || typeof values.url !== 'string')
      throw new UsageError('--workspace and --url are required');
    const created = await createEndpoint(await operations(context), {
      workspaceId: values.workspace,
      url: values.url,
      eventTypes: list(values['event-types']),
      rateLimitPerSecond: rateLimit(values['rate-limit']),
      ordered: values.ordered === true,
      description: values.description as string | undefined,
    });
    return writeEndpoint(context, created.endpoint, values.json === true, { secret: created.secret });
  },
};

const updateCommand: Command = {
  path: ['update'],
  usage:
    '<endpointId> [--url <url>] [--event-types a,b|*] [--rate-limit <n>|none] [--ordered true|false] [--description <text>] [--json]',
  description: 'Change an endpoint: its URL, the event types it receives, its rate limit, ordering',
  options: {
    url: { type: 'string' },
    'event-types': { type: 'string' },
    'rate-limit': { type: 'string' },
    ordered: { type: 'string' },
    description: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals }, context) {
    const id = onePositional(positionals, 'endpoint id');
    if (values.ordered !== undefined && values.ordered !== 'true' && values.ordered !== 'false')
      throw new UsageError('--ordered takes true or false');
    const changes: EndpointChanges = {
      url: values.url as string | undefined,
      eventTypes: values['event-types'] === '*' ? [] : list(values['event-types']),
      rateLimitPerSecond: rateLimit(values['rate-limit']),
      ordered: values.ordered === undefined ? undefined : values.ordered === 'true',
      description: values.description as string | undefined,
    };
    if (Object.values(changes).every((value) => value === undefined)) throw new UsageError('nothing to change');
    return writeEndpoint(context, await updateEndpoint(await operations(context), id, changes), values.json === true);
  },
};

const enableCommand = (enabled: boolean): Command => ({
  path: [enabled ? 'enable' : 'disable'],
  usage: '<endpointId> [--json]',
  description: enabled
    ? 'Enable an endpoint again (clears its failure run); then `berth deliveries recover` sends what it missed'
    : 'Disable an endpoint: nothing more is sent to it; deliveries that come due are logged as skipped',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    return writeEndpoint(
      context,
      await setEndpointEnabled(await operations(context), onePositional(positionals, 'endpoint id'), enabled),
      values.json === true,
    );
  },
});

const rotateCommand: Command = {
  path: ['rotate-secret'],
  usage: '<endpointId> [--overlap-hours <h>] [--json]',
  description:
    'Rotate the signing secret; the previous one keeps signing beside the new one for the overlap (default 24 h)',
  options: { 'overlap-hours': { type: 'string' }, json: { type: 'boolean' } },
  async run({ values, positionals }, context) {
    const id = onePositional(positionals, 'endpoint id');
    const hours = values['overlap-hours'] === undefined ? 24 : Number(values['overlap-hours']);
    if (!Number.isFinite(hours) || hours < 0)
      throw new UsageError('--overlap-hours must be a number of hours, 0 or more');
    const rotated = await rotateEndpointSecret(await operations(context), id, {
      overlapMs: Math.round(hours * 3_600_000),
    });
    return writeEndpoint(context, rotated.endpoint, values.json === true, {
      secret: rotated.secret,
      previousExpiresAt: rotated.previousExpiresAt,
    });
  },
};

const deleteCommand: Command = {
  path: ['delete'],
  usage: '<endpointId>',
  description: 'Delete an endpoint: its queued deliveries are dropped; its delivery log stays until retention',
  options: {},
  async run({ positionals }, context) {
    const id = onePositional(positionals, 'endpoint id');
    await deleteEndpoint(await operations(context), id);
    context.stdout.write(`Endpoint ${id} deleted.\n`);
    return 0;
  },
};

/** `berth endpoints …`: customers' outbound webhook endpoints. */
export const endpointsCommands: CommandGroup = {
  name: 'endpoints',
  description: 'Outbound webhook endpoints: list, create, update, disable and enable, rotate the secret, delete',
  commands: [
    listCommand,
    createCommand,
    updateCommand,
    enableCommand(false),
    enableCommand(true),
    rotateCommand,
    deleteCommand,
  ],
};
