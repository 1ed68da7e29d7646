import type Router from '@koa/router';
import { createRouter } from '@berth/http-guard/koa';
import { ConsoleError } from '../errors';
import type { ConsoleDependencies } from '../dependencies';
import { readTrace, TRACE_ID } from '../traces/read-trace';

/**
 * `GET /api/traces/:traceId`: the trace as a waterfall (`TraceView`), read from the Jaeger at `JAEGER_UI_URL` (its
 * query API is served beside its UI). 404 when no Jaeger is configured or it holds no span of the trace.
 */
export function traceRoutes(dependencies: ConsoleDependencies): Router {
  const router = createRouter({ prefix: '/api/traces' });
  router.get('/:traceId', async (ctx) => {
    const { traceId } = ctx.params;
    if (!TRACE_ID.test(traceId)) throw new ConsoleError(400, 'invalid', `Not a trace id: ${traceId}`);
    if (!dependencies.jaegerUiUrl) throw new ConsoleError(404, 'not_found', 'No trace store is configured');
    const trace = await readTrace(dependencies.jaegerUiUrl, traceId).catch((error: unknown) => {
      throw new ConsoleError(502, 'trace_store', `Jaeger could not be read: ${(error as Error).message}`);
    });
    if (!trace) throw new ConsoleError(404, 'not_found', `Jaeger holds no span of trace ${traceId} (yet)`);
    ctx.body = trace;
  });
  return router;
}
