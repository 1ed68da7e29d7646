import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { RouteTable, type GuardRefusal, type TableRoute } from '../route-table';

/**
 * Who may reach a group of routes: `'public'` (anyone, no credentials), or the middleware that checks the
 * credentials, which calls `next` to let the request through and throws or answers (401, 403) to refuse it.
 */
export type RouteAccess = 'public' | Middleware;

/** Routers whose routes share one access. */
export interface GuardedRoutes {
  /** Created by {@link createRouter} (case-sensitive and strict), in the order their routes are tried. */
  readonly routers: readonly Router[];
  readonly access: RouteAccess;
}

/** Options of {@link httpGuard}. */
export interface HttpGuardOptions {
  /**
   * Answers a refused request (or throws the app's own error). Default: the status, with `{ error, message }`
   * (`not_found`, `method_not_allowed`) and, for a 405, `Allow`.
   */
  readonly refuse?: (ctx: Context, refusal: GuardRefusal) => void;
}

/** The guard: a Koa middleware that also names the routers it serves (route listings, the security campaign). */
export type HttpGuard = Middleware & { readonly routers: readonly Router[] };

/**
 * A router as every Berth app makes them: case-sensitive and strict (`/a` is not `/A`, nor `/a/`), so that a path
 * matches at most the one route written that way. A route on `prefix` itself is written with the whole path on a
 * router without prefix (with `strict`, `prefix` + `'/'` would need a trailing slash).
 */
export function createRouter(options: { prefix?: string } = {}): Router {
  return new Router({ ...options, sensitive: true, strict: true });
}

function defaultRefuse(ctx: Context, refusal: GuardRefusal): void {
  ctx.status = refusal.status;
  if (refusal.status === 405) {
    ctx.set('Allow', refusal.allow.join(', '));
    ctx.body = { error: 'method_not_allowed', message: 'this method is not allowed here' };
  } else ctx.body = { error: 'not_found', message: 'no such route' };
}

function checkRouter(router: Router): void {
  for (const layer of router.stack) {
    const name = `${layer.methods.join(',') || 'middleware'} ${String(layer.path)}`;
    if (typeof layer.path !== 'string') throw new TypeError(`${name}: routes are written as paths, not expressions`);
    if (layer.methods.length === 0)
      throw new TypeError(`${name}: router middleware runs beside the guard's decision; put it in the route or access`);
    if (layer.opts.sensitive !== true || layer.opts.strict !== true)
      throw new TypeError(`${name}: make the router with createRouter() (case-sensitive and strict)`);
    if (layer.path.length > 1 && layer.path.endsWith('/'))
      throw new TypeError(`${name}: a route ending in '/' can never be reached (trailing slashes are refused)`);
  }
}

/**
 * The one guard of a Koa app, deny by default, placed where the app would mount its routers (it mounts them).
 * For each request, before any route runs:
 * 1. a path not in its canonical spelling (`pathRefusal`: `//`, trailing `/`, `;`, `.` and `..` segments,
 *    encoded letters, dots and slashes, …) is refused with 404;
 * 2. the route is found exactly as the routers will match it (their own expressions, case-sensitive and strict,
 *    in group order; {@link RouteTable}); a request that a lenient reading (any case, percent-decoded) would send
 *    to another route, or that no route takes, is refused with 404: `/API/x` is never an unguarded twin of `/api/x`;
 * 3. the route's group decides: `'public'` passes, anything else must let the request through its access
 *    middleware, which runs before the route (and before any body is read);
 * 4. a path whose route takes other methods only is answered 405 (after that access check).
 * Only the router of the chosen route runs. A route reached by no group does not exist.
 * @throws TypeError at construction for a router not made by {@link createRouter}, a route by regular expression,
 *   a route ending in `/`, or router-level middleware (`router.use(fn)`), which would run outside the decision.
 */
export function httpGuard(groups: readonly GuardedRoutes[], options: HttpGuardOptions = {}): HttpGuard {
  const refuse = options.refuse ?? defaultRefuse;
  const routes: TableRoute<Router>[] = [];
  const dispatchers = new Map<Router, Middleware>();
  groups.forEach((group, index) => {
    for (const router of group.routers) {
      checkRouter(router);
      dispatchers.set(router, router.routes() as unknown as Middleware);
      for (const layer of router.stack)
        routes.push({ group: index, methods: layer.methods, regexp: layer.regexp, target: router });
    }
  });
  const table = new RouteTable(routes);

  const guard = async (ctx: Context, next: Next): Promise<void> => {
    const decision = table.decide(ctx.method, ctx.path);
    if (decision.kind === 'refused') return refuse(ctx, decision.refusal);
    const { access } = groups[decision.route.group];
    const run = decision.allowed
      ? () => dispatchers.get(decision.route.target)!(ctx, next) as Promise<void>
      : () => {
          refuse(ctx, decision.refusal);
          return Promise.resolve();
        };
    if (access === 'public') return run();
    await access(ctx, run);
  };
  return Object.assign(guard, { routers: [...dispatchers.keys()] });
}
