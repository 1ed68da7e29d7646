import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import { z } from 'zod';
import { ConsoleError } from '../errors';
import { actorOf } from '../auth/authenticate';
import type { ConsoleDependencies } from '../dependencies';
import { eventDetail } from '../webhooks/event-detail';
import { CONSOLE_EVENT_STATES, searchEvents } from '../webhooks/search-events';
import { queryOf } from './query';

const optionalText = z
  .string()
  .trim()
  .max(256)
  .optional()
  .transform((value) => (value === '' ? undefined : value));
const optionalDate = z.iso
  .datetime({ offset: true })
  .optional()
  .or(z.literal('').transform(() => undefined))
  .transform((value) => (value ? new Date(value) : undefined));

const searchQuery = z.object({
  provider: optionalText,
  type: optionalText,
  eventId: optionalText,
  state: z
    .enum(CONSOLE_EVENT_STATES)
    .optional()
    .or(z.literal('').transform(() => undefined)),
  from: optionalDate,
  to: optionalDate,
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/**
 * `GET /api/webhooks/events?provider&type&state&eventId&from&to&limit` (search, no payloads),
 * `GET /api/webhooks/providers`, and `GET /api/webhooks/events/:provider/:eventId[?reveal=true]`: an event with
 * its payload masked, unless `reveal`, which is written to the audit trail with who asked.
 */
export function webhookRoutes(dependencies: ConsoleDependencies): Router {
  const router = createRouter({ prefix: '/api/webhooks' });
  router.get('/events', async (ctx) => {
    ctx.body = await searchEvents(dependencies.inbox, queryOf(ctx, searchQuery));
  });
  router.get('/providers', async (ctx) => {
    ctx.body = { providers: (await dependencies.inbox.events.distinct('provider')).sort() };
  });
  router.get('/events/:provider/:eventId', async (ctx) => {
    const reveal = ctx.query.reveal === 'true';
    const detail = await eventDetail(dependencies, ctx.params.provider, ctx.params.eventId, reveal);
    if (!detail)
      throw new ConsoleError(404, 'not_found', `No webhook event ${ctx.params.provider}:${ctx.params.eventId}`);
    if (reveal)
      await dependencies.audit.record(actorOf(ctx), {
        action: 'webhooks.reveal-payload',
        params: { provider: detail.provider, eventId: detail.eventId },
        outcome: 'done',
        summary: `Read the unmasked payload of ${detail.provider}:${detail.eventId}`,
      });
    ctx.body = detail;
  });
  return router;
}
