import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard';
import { z } from 'zod';
import type { ConsoleDependencies } from '../dependencies';
import { groupIssues } from '../issues/group-issues';
import { queryOf } from './query';

/** `GET /api/issues?days=7`: open failures grouped by cause, with the bulk action of each; `GET /api/audit`. */
export function issueRoutes(dependencies: ConsoleDependencies): Router {
  const router = createRouter({ prefix: '/api' });
  router.get('/issues', async (ctx) => {
    const { days } = queryOf(ctx, z.object({ days: z.coerce.number().min(1).max(30).default(7) }));
    ctx.body = { issues: await groupIssues(dependencies, { days }) };
  });
  router.get('/audit', async (ctx) => {
    ctx.body = { entries: await dependencies.audit.latest(200) };
  });
  return router;
}
