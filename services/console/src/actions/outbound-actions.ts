import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  announceEndpointChange,
  createEndpoint,
  deleteEndpoint,
  getDeliveryView,
  listDeliveries,
  listEndpoints,
  recoverEndpoint,
  replayDelivery,
  rotateEndpointSecret,
  sendEvent,
  setEndpointEnabled,
  subscribesTo,
  toEndpointView,
  updateEndpoint,
  type EndpointDocument,
  type EndpointOperationDependencies,
  type ReplayDependencies,
} from '@berth/outbound';
import type { Actor } from '../auth/roles';
import type { ConsoleDependencies } from '../dependencies';
import { counted, defineAction, type ConsoleAction } from './console-action';
import { ConsoleError } from '../errors';

const endpointId = z.string().min(1).max(128);

/** The endpoint operations of `@berth/outbound`, announcing each change to the dispatchers. */
export function endpointOperations(dependencies: ConsoleDependencies): EndpointOperationDependencies {
  return {
    collections: dependencies.outbound,
    clock: dependencies.clock,
    onChanged: (id) => announceEndpointChange(dependencies.messaging.nc, id),
  };
}

function replayDependencies(dependencies: ConsoleDependencies): ReplayDependencies {
  return { js: dependencies.messaging.js, collections: dependencies.outbound, clock: dependencies.clock };
}

/** The endpoint, if the actor may act on it: any for an operator, only its workspace's for a portal session (else 404, telling nothing). */
export async function endpointFor(
  dependencies: ConsoleDependencies,
  actor: Actor,
  id: string,
): Promise<EndpointDocument> {
  const endpoint = await dependencies.outbound.endpoints.findOne({ _id: id });
  if (!endpoint || (actor.kind === 'portal' && endpoint.workspaceId !== actor.workspaceId))
    throw new ConsoleError(404, 'not_found', `No endpoint ${id}`);
  return endpoint;
}

function describeEndpoint(endpoint: EndpointDocument, now: Date) {
  const view = toEndpointView(endpoint, now);
  return {
    id: view.id,
    workspaceId: view.workspaceId,
    url: view.url,
    enabled: view.enabled,
    failingSince: view.failingSince,
  };
}

/** Both audiences: the same operation, scoped to the workspace for the portal. */
function forBoth<S extends z.ZodType>(
  name: string,
  action: Omit<ConsoleAction<z.infer<S>>, 'name' | 'audience' | 'params'> & { params: S },
): ConsoleAction<z.infer<S>>[] {
  return [
    defineAction({ ...action, name: `outbound.${name}`, audience: 'console' }),
    defineAction({ ...action, name: `portal.${name}`, audience: 'portal' }),
  ];
}

const replayActions = forBoth('replay', {
  params: z.object({ deliveryIds: z.array(z.string().min(1).max(256)).min(1).max(500) }).strict(),
  async preview(params, dependencies, actor) {
    const views = (
      await Promise.all(params.deliveryIds.map((id) => getDeliveryView(dependencies.outbound, id)))
    ).filter((view) => view !== undefined && (actor.kind === 'console' || view.workspaceId === actor.workspaceId));
    const replayable = views.filter((view) => view!.status !== 'pending');
    return {
      count: replayable.length,
      summary: `Sends ${counted(replayable.length, 'delivery', 'deliveries')} again with the same webhook-id (${views.length - replayable.length} still pending are left alone)`,
      items: replayable.slice(0, 20).map((view) => ({
        id: view!.id,
        endpointId: view!.endpointId,
        status: view!.status,
        eventType: view!.eventType,
      })),
    };
  },
  async execute(params, dependencies, actor) {
    const done = [];
    for (const id of params.deliveryIds) {
      const view = await getDeliveryView(dependencies.outbound, id);
      if (!view || (actor.kind === 'portal' && view.workspaceId !== actor.workspaceId) || view.status === 'pending')
        continue;
      done.push(await replayDelivery(replayDependencies(dependencies), id));
    }
    return { summary: `Replayed ${counted(done.length, 'delivery', 'deliveries')}`, result: { replayed: done } };
  },
});

const recoverActions = forBoth('recover', {
  params: z.object({ endpointId, since: z.iso.datetime({ offset: true }) }).strict(),
  async preview(params, dependencies, actor) {
    const endpoint = await endpointFor(dependencies, actor, params.endpointId);
    const failed = await listDeliveries(
      { collections: dependencies.outbound },
      { endpointId: endpoint._id, status: ['failed', 'skipped'], since: new Date(params.since), limit: 10_000 },
    );
    return {
      count: failed.length,
      summary: `Sends again the ${counted(failed.length, 'failed or skipped delivery', 'failed or skipped deliveries')} of ${endpoint.url} since ${params.since}`,
      items: failed
        .slice(0, 20)
        .map((view) => ({ id: view.id, status: view.status, eventType: view.eventType, createdAt: view.createdAt })),
    };
  },
  async execute(params, dependencies, actor) {
    const endpoint = await endpointFor(dependencies, actor, params.endpointId);
    const replayed = await recoverEndpoint(replayDependencies(dependencies), endpoint._id, new Date(params.since));
    return {
      summary: `Replayed ${counted(replayed.length, 'delivery', 'deliveries')} of ${endpoint.url}`,
      result: { replayed },
    };
  },
});

const setEnabledActions = forBoth('set-enabled', {
  params: z.object({ endpointId, enabled: z.boolean() }).strict(),
  async preview(params, dependencies, actor) {
    const endpoint = await endpointFor(dependencies, actor, params.endpointId);
    const change = (endpoint.disabledAt === null) !== params.enabled;
    return {
      count: change ? 1 : 0,
      summary: change
        ? `${params.enabled ? 'Enables' : 'Disables'} ${endpoint.url}${params.enabled ? '' : ': deliveries are skipped until it is enabled again'}`
        : `${endpoint.url} is already ${params.enabled ? 'enabled' : 'disabled'}`,
      items: [describeEndpoint(endpoint, dependencies.clock.now())],
    };
  },
  async execute(params, dependencies, actor) {
    const endpoint = await endpointFor(dependencies, actor, params.endpointId);
    const view = await setEndpointEnabled(endpointOperations(dependencies), endpoint._id, params.enabled);
    return { summary: `${endpoint._id} ${params.enabled ? 'enabled' : 'disabled'}`, result: { endpoint: view } };
  },
});

const rotateActions = forBoth('rotate-secret', {
  params: z.object({ endpointId, overlapHours: z.number().min(0).max(168).optional() }).strict(),
  async preview(params, dependencies, actor) {
    const endpoint = await endpointFor(dependencies, actor, params.endpointId);
    return {
      count: 1,
      summary: `Makes a new signing secret for ${endpoint.url}; the current one keeps signing beside it for ${params.overlapHours ?? 24} h`,
      items: [describeEndpoint(endpoint, dependencies.clock.now())],
    };
  },
  async execute(params, dependencies, actor) {
    const endpoint = await endpointFor(dependencies, actor, params.endpointId);
    const rotated = await rotateEndpointSecret(endpointOperations(dependencies), endpoint._id, {
      overlapMs: params.overlapHours === undefined ? undefined : Math.round(params.overlapHours * 3_600_000),
    });
    return {
      summary: `Rotated the secret of ${endpoint._id}; the previous one signs until ${rotated.previousExpiresAt}`,
      result: rotated,
    };
  },
});

const endpointFields = {
  url: z.string().min(1).max(2048),
  description: z.string().max(1000).optional(),
  eventTypes: z.array(z.string().min(1).max(128)).max(500).optional(),
};

/** `portal.create-endpoint`: a new endpoint of the session's workspace; answers its secret once. */
const createEndpointAction = defineAction({
  name: 'portal.create-endpoint',
  audience: 'portal',
  params: z.object(endpointFields).strict(),
  async preview(params) {
    return {
      count: 1,
      summary: `Creates an endpoint at ${params.url} for ${params.eventTypes?.length ? params.eventTypes.join(', ') : 'every event type'}`,
      items: [params],
    };
  },
  async execute(params, dependencies, actor) {
    if (actor.kind !== 'portal') throw new ConsoleError(403, 'forbidden', 'portal sessions only');
    const created = await createEndpoint(endpointOperations(dependencies), {
      workspaceId: actor.workspaceId,
      ...params,
    });
    return { summary: `Created ${created.endpoint.id} at ${params.url}`, result: created };
  },
});

/** `portal.update-endpoint`: change an endpoint's URL, description or subscribed types. */
const updateEndpointAction = defineAction({
  name: 'portal.update-endpoint',
  audience: 'portal',
  params: z
    .object({
      endpointId,
      url: endpointFields.url.optional(),
      description: endpointFields.description,
      eventTypes: endpointFields.eventTypes,
    })
    .strict(),
  async preview(params, dependencies, actor) {
    const endpoint = await endpointFor(dependencies, actor, params.endpointId);
    return {
      count: 1,
      summary: `Updates ${endpoint.url}`,
      items: [
        {
          before: { url: endpoint.url, eventTypes: endpoint.eventTypes, description: endpoint.description },
          after: params,
        },
      ],
    };
  },
  async execute({ endpointId: id, ...changes }, dependencies, actor) {
    await endpointFor(dependencies, actor, id);
    const view = await updateEndpoint(endpointOperations(dependencies), id, changes);
    return { summary: `Updated ${id}`, result: { endpoint: view } };
  },
});

/** `portal.delete-endpoint`: no more deliveries to it; those queued are dropped. */
const deleteEndpointAction = defineAction({
  name: 'portal.delete-endpoint',
  audience: 'portal',
  params: z.object({ endpointId }).strict(),
  async preview(params, dependencies, actor) {
    const endpoint = await endpointFor(dependencies, actor, params.endpointId);
    return {
      count: 1,
      summary: `Deletes ${endpoint.url}: it receives nothing more, and deliveries still queued for it are dropped`,
      items: [describeEndpoint(endpoint, dependencies.clock.now())],
    };
  },
  async execute(params, dependencies, actor) {
    await endpointFor(dependencies, actor, params.endpointId);
    await deleteEndpoint(endpointOperations(dependencies), params.endpointId);
    return { summary: `Deleted ${params.endpointId}`, result: { deleted: params.endpointId } };
  },
});

/** `portal.send-test`: sends the catalog's example of a type as a real event of the workspace. */
const sendTestAction = defineAction({
  name: 'portal.send-test',
  audience: 'portal',
  params: z.object({ eventType: z.string().min(1).max(128) }).strict(),
  async preview(params, dependencies, actor) {
    if (actor.kind !== 'portal') throw new ConsoleError(403, 'forbidden', 'portal sessions only');
    const entry = await dependencies.dispatcher.eventType(params.eventType);
    const endpoints = (
      await listEndpoints(endpointOperations(dependencies), { workspaceId: actor.workspaceId })
    ).filter((endpoint) => endpoint.disabledAt === null && subscribesTo(endpoint, entry.type));
    return {
      count: endpoints.length,
      summary: `Sends an example ${entry.type} event to ${counted(endpoints.length, 'enabled endpoint')} subscribed to it`,
      items: [{ type: entry.type, data: entry.example, endpoints: endpoints.map((endpoint) => endpoint.url) }],
    };
  },
  async execute(params, dependencies, actor) {
    if (actor.kind !== 'portal') throw new ConsoleError(403, 'forbidden', 'portal sessions only');
    const entry = await dependencies.dispatcher.eventType(params.eventType);
    const data =
      entry.type === 'webhook.test'
        ? { message: 'This is a test event from Berth.', sentAt: dependencies.clock.now().toISOString() }
        : entry.example;
    const sent = await sendEvent(
      { js: dependencies.messaging.js, clock: dependencies.clock },
      actor.workspaceId,
      entry.type,
      data,
      { idempotencyKey: `portal-test:${randomUUID()}` },
    );
    return { summary: `Sent test event ${sent.eventId} (${entry.type})`, result: sent };
  },
});

/** Every outbound action, for operators (`outbound.*`) and for the portal (`portal.*`). */
export const OUTBOUND_ACTIONS: ConsoleAction[] = [
  ...replayActions,
  ...recoverActions,
  ...setEnabledActions,
  ...rotateActions,
  createEndpointAction,
  updateEndpointAction,
  deleteEndpointAction,
  sendTestAction,
] as ConsoleAction[];
