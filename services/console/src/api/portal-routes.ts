import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import { z } from 'zod';
import { listDeliveries, listEndpoints, toEndpointView } from '@berth/outbound';
import { actorOf } from '../auth/authenticate';
import { issuePortalToken } from '../auth/portal-token';
import { ConsoleError } from '../errors';
import { CONSOLE_ACTIONS } from '../actions/registry';
import type { ConsoleDependencies } from '../dependencies';
import { actionRoutes } from './action-routes';
import { deliveriesQuery } from './outbound-routes';
import { queryOf } from './query';

const sessionBody = z
  .object({
    workspaceId: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'a workspace id'),
    /** Who in the product the link is for (a user id): logged with every portal action. */
    subject: z.string().min(1).max(128),
    ttlSeconds: z.number().int().min(60).max(3600).optional(),
  })
  .strict();

function workspaceOf(ctx: Parameters<typeof actorOf>[0]): string {
  const actor = actorOf(ctx);
  if (actor.kind !== 'portal') throw new ConsoleError(403, 'forbidden', 'portal sessions only');
  return actor.workspaceId;
}

/**
 * The endpoint portal's API (who may call it: the app's guard, `httpGuard` in app.ts). `POST /api/portal-sessions` (an `issuer` or `operator` console token) mints a portal
 * token for one workspace; everything under `/api/portal` takes that token and sees only its workspace: the session,
 * the event-type catalog (from the dispatcher), the workspace's endpoints and delivery log, and the portal actions
 * (`/api/portal/actions/…`, previewed and confirmed like the console's).
 */
export function portalRoutes(dependencies: ConsoleDependencies): Router[] {
  const issuing = createRouter();
  issuing.post('/api/portal-sessions', async (ctx) => {
    const parsed = sessionBody.safeParse((ctx.request as unknown as { body?: unknown }).body ?? {});
    if (!parsed.success)
      throw new ConsoleError(
        400,
        'invalid_request',
        parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
      );
    const ttlSeconds = parsed.data.ttlSeconds ?? dependencies.portalTokenTtlSeconds;
    const { token, expiresAt } = issuePortalToken(
      dependencies.signedTokens,
      { ...parsed.data, ttlSeconds },
      dependencies.clock.now(),
    );
    await dependencies.audit.record(actorOf(ctx), {
      action: 'portal.issue-session',
      params: { workspaceId: parsed.data.workspaceId, subject: parsed.data.subject, ttlSeconds },
      outcome: 'done',
      summary: `Portal session for ${parsed.data.workspaceId} (${parsed.data.subject}) until ${expiresAt.toISOString()}`,
    });
    ctx.status = 201;
    ctx.body = { token, expiresAt: expiresAt.toISOString(), path: `/portal#token=${token}` };
  });

  const portal = createRouter({ prefix: '/api/portal' });
  portal.get('/session', (ctx) => {
    const actor = actorOf(ctx);
    ctx.body =
      actor.kind === 'portal'
        ? { workspaceId: actor.workspaceId, subject: actor.subject, expiresAt: actor.expiresAt.toISOString() }
        : {};
  });
  portal.get('/event-types', async (ctx) => {
    ctx.body = { eventTypes: await dependencies.dispatcher.eventTypes() };
  });
  portal.get('/endpoints', async (ctx) => {
    const now = dependencies.clock.now();
    ctx.body = {
      endpoints: (await listEndpoints({ collections: dependencies.outbound }, { workspaceId: workspaceOf(ctx) })).map(
        (endpoint) => toEndpointView(endpoint, now),
      ),
    };
  });
  portal.get('/deliveries', async (ctx) => {
    const query = queryOf(ctx, deliveriesQuery);
    ctx.body = {
      deliveries: await listDeliveries(
        { collections: dependencies.outbound },
        {
          ...query,
          workspaceId: workspaceOf(ctx),
          since: query.since ? new Date(query.since) : undefined,
          limit: query.limit ?? 100,
        },
      ),
    };
  });
  const actions = actionRoutes({
    prefix: '/actions',
    audience: 'portal',
    actions: CONSOLE_ACTIONS,
    dependencies,
    actorOf,
  });
  portal.use(actions.routes());
  return [issuing, portal];
}
