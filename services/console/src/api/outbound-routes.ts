import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import { z } from 'zod';
import { DELIVERY_USER_AGENT, getDeliveryView, listDeliveries, listEndpoints, toEndpointView } from '@berth/outbound';
import { ConsoleError } from '../errors';
import type { ConsoleDependencies } from '../dependencies';
import { queryOf } from './query';

const optional = z
  .string()
  .max(256)
  .optional()
  .transform((value) => value || undefined);

/** The delivery filter both the console and the portal take. */
export const deliveriesQuery = z.object({
  endpointId: optional,
  eventId: optional,
  eventType: optional,
  status: z
    .enum(['pending', 'delivered', 'failed', 'skipped'])
    .optional()
    .or(z.literal('').transform(() => undefined)),
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .or(z.literal('').transform(() => undefined)),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/**
 * `GET /api/outbound/endpoints?workspaceId=` (with state and failure run), `GET /api/outbound/endpoints/:id`, `GET /api/outbound/deliveries?…`
 * (every attempt and response), `GET /api/outbound/deliveries/:id`.
 */
export function outboundRoutes(dependencies: ConsoleDependencies): Router {
  const router = createRouter({ prefix: '/api/outbound' });
  router.get('/endpoints', async (ctx) => {
    const { workspaceId } = queryOf(ctx, z.object({ workspaceId: optional }));
    const now = dependencies.clock.now();
    const endpoints = await listEndpoints({ collections: dependencies.outbound }, { workspaceId });
    ctx.body = { endpoints: endpoints.map((endpoint) => toEndpointView(endpoint, now)) };
  });
  router.get('/endpoints/:id', async (ctx) => {
    const endpoint = await dependencies.outbound.endpoints.findOne({ _id: ctx.params.id });
    if (!endpoint) throw new ConsoleError(404, 'not_found', `No endpoint ${ctx.params.id}`);
    ctx.body = toEndpointView(endpoint, dependencies.clock.now());
  });
  router.get('/deliveries', async (ctx) => {
    const query = queryOf(ctx, deliveriesQuery.extend({ workspaceId: optional }));
    ctx.body = {
      deliveries: await listDeliveries(
        { collections: dependencies.outbound },
        { ...query, since: query.since ? new Date(query.since) : undefined, limit: query.limit ?? 100 },
      ),
    };
  });
  router.get('/deliveries/:id/request', async (ctx) => {
    const view = await getDeliveryView(dependencies.outbound, ctx.params.id);
    if (!view) throw new ConsoleError(404, 'not_found', `No delivery ${ctx.params.id}`);
    const [event, endpoint] = await Promise.all([
      dependencies.outbound.events.findOne({ _id: view.eventId }),
      dependencies.outbound.endpoints.findOne({ _id: view.endpointId }),
    ]);
    ctx.body = requestOf(view, event?.body ?? null, endpoint?.url ?? null);
  });
  router.get('/deliveries/:id', async (ctx) => {
    const view = await getDeliveryView(dependencies.outbound, ctx.params.id);
    if (!view) throw new ConsoleError(404, 'not_found', `No delivery ${ctx.params.id}`);
    ctx.body = view;
  });
  return router;
}

/**
 * The request a delivery's attempts sent, as the dispatcher builds it (`deliverWebhook`): POST to the endpoint's URL
 * with the stored event's body, and the Standard Webhooks headers: `webhook-id` is the delivery's id, each attempt
 * signs a fresh `webhook-timestamp` (its start, to the second), and the signature, made with the endpoint's secret,
 * is not kept.
 */
export function requestOf(
  view: { id: string; log: { kind: string; at: string }[] },
  body: string | null,
  url: string | null,
): {
  method: 'POST';
  url: string | null;
  headers: Record<string, string>;
  timestamps: number[];
  body: string | null;
} {
  return {
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      ...(body === null ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
      'user-agent': DELIVERY_USER_AGENT,
      'webhook-id': view.id,
      'webhook-timestamp': 'the attempt’s start, in Unix seconds (below)',
      'webhook-signature': 'v1,<HMAC-SHA256 with the endpoint’s secret> (not kept)',
    },
    timestamps: view.log
      .filter((entry) => entry.kind === 'attempt')
      .map((entry) => Math.floor(Date.parse(entry.at) / 1000)),
    body,
  };
}
