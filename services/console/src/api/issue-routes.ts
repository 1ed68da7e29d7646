import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import { z } from 'zod';
import type { ConsoleDependencies } from '../dependencies';
import { groupIssues } from '../issues/group-issues';
import { withIssueStates } from '../issues/issue-states';
import { queryOf } from './query';

/**
 * `GET /api/issues?days=7[&resolved=true]`: failures grouped by cause, with the bulk action and the status of each
 * (resolved ones only when asked); `GET /api/audit`.
 */
export function issueRoutes(dependencies: ConsoleDependencies): Router {
  const router = createRouter({ prefix: '/api' });
  router.get('/issues', async (ctx) => {
    const { days, resolved } = queryOf(
      ctx,
      z.object({
        days: z.coerce.number().min(1).max(30).default(7),
        resolved: z.enum(['true', 'false']).default('false'),
      }),
    );
    const issues = await withIssueStates(dependencies.db, await groupIssues(dependencies, { days }));
    ctx.body = { issues: resolved === 'true' ? issues : issues.filter((issue) => issue.status !== 'resolved') };
  });
  router.get('/audit', async (ctx) => {
    ctx.body = { entries: await dependencies.audit.latest(200) };
  });
  return router;
}
