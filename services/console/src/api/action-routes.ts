import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import type { Context } from 'koa';
import { actorName, type Actor } from '../auth/roles';
import { checkConfirmation, issueConfirmation } from '../actions/confirmation';
import type { ConsoleAction } from '../actions/console-action';
import { ConsoleError } from '../errors';
import type { ConsoleDependencies } from '../dependencies';

/**
 * `POST <prefix>/:name/preview` (the dry run: what would change, and a confirmation) and `POST <prefix>/:name`
 * (`{ params, confirmation }`: runs it). Both are audited with the actor. The actor comes from `actorOf`, which
 * also decides who may run actions of `audience`.
 */
export function actionRoutes(options: {
  prefix: string;
  audience: ConsoleAction['audience'];
  actions: ReadonlyMap<string, ConsoleAction>;
  dependencies: ConsoleDependencies;
  actorOf: (ctx: Context) => Actor;
}): Router {
  const { dependencies } = options;
  const router = createRouter({ prefix: options.prefix });
  const resolve = (ctx: Context) => {
    const action = options.actions.get(ctx.params.name);
    if (!action || action.audience !== options.audience)
      throw new ConsoleError(404, 'not_found', `No action ${ctx.params.name}`);
    const body = (ctx.request as unknown as { body?: { params?: unknown; confirmation?: unknown } }).body ?? {};
    const parsed = action.params.safeParse(body.params ?? {});
    if (!parsed.success)
      throw new ConsoleError(
        400,
        'invalid_request',
        parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`).join('; '),
      );
    return {
      action,
      params: parsed.data as Record<string, unknown>,
      confirmation: body.confirmation,
      actor: options.actorOf(ctx),
    };
  };

  router.post('/:name/preview', async (ctx) => {
    const { action, params, actor } = resolve(ctx);
    const preview = await action.preview(params, dependencies, actor);
    await dependencies.audit.record(actor, {
      action: action.name,
      params,
      outcome: 'previewed',
      summary: preview.summary,
    });
    const confirmation =
      preview.count > 0
        ? issueConfirmation(
            dependencies.signedTokens,
            action.name,
            params,
            actorName(actor),
            preview.count,
            dependencies.clock.now(),
          )
        : null;
    ctx.body = { ...preview, confirmation };
  });

  router.post('/:name', async (ctx) => {
    const { action, params, actor, confirmation } = resolve(ctx);
    const refused = checkConfirmation(
      dependencies.signedTokens,
      confirmation,
      action.name,
      params,
      actorName(actor),
      dependencies.clock.now(),
    );
    if (refused) {
      await dependencies.audit.record(actor, { action: action.name, params, outcome: 'refused', summary: refused });
      throw new ConsoleError(428, 'confirmation_required', refused);
    }
    try {
      const outcome = await action.execute(params, dependencies, actor);
      await dependencies.audit.record(actor, {
        action: action.name,
        params,
        outcome: 'done',
        summary: outcome.summary,
      });
      ctx.body = outcome;
    } catch (error) {
      await dependencies.audit.record(actor, {
        action: action.name,
        params,
        outcome: 'failed',
        summary: (error as Error).message,
      });
      throw error;
    }
  });
  return router;
}
