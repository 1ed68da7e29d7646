import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { pathRefusal, type PathRefusal } from './path-refusal';

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

/** Why the guard refused a request before any route ran. */
export type GuardRefusal =
  | { readonly status: 404; readonly reason: PathRefusal | 'no-route' | 'other-spelling' }
  | { readonly status: 405; readonly reason: 'method-not-allowed'; readonly allow: readonly string[] };

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

interface Entry {
  readonly group: number;
  readonly router: Router;
  readonly layer: Router['stack'][number];
  /** The layer's own expression, case-insensitive: how a lenient router (and an unwary path check) would read it. */
  readonly lenient: RegExp;
}

function defaultRefuse(ctx: Context, refusal: GuardRefusal): void {
  ctx.status = refusal.status;
  if (refusal.status === 405) {
    ctx.set('Allow', refusal.allow.join(', '));
    ctx.body = { error: 'method_not_allowed', message: 'this method is not allowed here' };
  } else ctx.body = { error: 'not_found', message: 'no such route' };
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** The first entry whose expression matches `path` for `method`, else the first matching `path` alone. */
function firstMatch(
  entries: readonly Entry[],
  path: string,
  method: string,
  lenient: boolean,
): { entry: Entry; methodMatches: boolean } | undefined {
  let pathOnly: Entry | undefined;
  for (const entry of entries) {
    if (!(lenient ? entry.lenient : entry.layer.regexp).test(path)) continue;
    if (entry.layer.methods.includes(method)) return { entry, methodMatches: true };
    pathOnly ??= entry;
  }
  return pathOnly && { entry: pathOnly, methodMatches: false };
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
 * The one guard of an HTTP app, deny by default, placed where the app would mount its routers (it mounts them).
 * For each request, before any route runs:
 * 1. a path not in its canonical spelling ({@link pathRefusal}: `//`, trailing `/`, `;`, `.` and `..` segments,
 *    encoded letters, dots and slashes, …) is refused with 404;
 * 2. the route is found exactly as the routers will match it (their own expressions, case-sensitive and strict,
 *    in group order); a request that a lenient reading (any case, percent-decoded) would send to another route, or
 *    that no route takes, is refused with 404: `/API/x` is never an unguarded twin of `/api/x`;
 * 3. the route's group decides: `'public'` passes, anything else must let the request through its access
 *    middleware, which runs before the route (and before any body is read);
 * 4. a path whose route takes other methods only is answered 405 (after that access check).
 * Only the router of the chosen route runs. A route reached by no group does not exist.
 * @throws TypeError at construction for a router not made by {@link createRouter}, a route by regular expression,
 *   a route ending in `/`, or router-level middleware (`router.use(fn)`), which would run outside the decision.
 */
export function httpGuard(groups: readonly GuardedRoutes[], options: HttpGuardOptions = {}): HttpGuard {
  const refuse = options.refuse ?? defaultRefuse;
  const entries: Entry[] = [];
  const dispatchers = new Map<Router, Middleware>();
  groups.forEach((group, index) => {
    for (const router of group.routers) {
      checkRouter(router);
      dispatchers.set(router, router.routes() as unknown as Middleware);
      for (const layer of router.stack)
        entries.push({ group: index, router, layer, lenient: new RegExp(layer.regexp.source, 'i') });
    }
  });

  const guard = async (ctx: Context, next: Next): Promise<void> => {
    const path = ctx.path;
    const refusal = pathRefusal(path);
    if (refusal) return refuse(ctx, { status: 404, reason: refusal });
    const method = ctx.method.toUpperCase();
    const exact = firstMatch(entries, path, method, false);
    const lenient = firstMatch(entries, safeDecode(path), method, true);
    if (!exact) return refuse(ctx, { status: 404, reason: lenient ? 'other-spelling' : 'no-route' });
    if (lenient?.entry !== exact.entry) return refuse(ctx, { status: 404, reason: 'other-spelling' });
    const { access } = groups[exact.entry.group];
    const run = exact.methodMatches
      ? () => dispatchers.get(exact.entry.router)!(ctx, next) as Promise<void>
      : () => {
          const allow = new Set(
            entries.filter((entry) => entry.layer.regexp.test(path)).flatMap((e) => e.layer.methods),
          );
          refuse(ctx, { status: 405, reason: 'method-not-allowed', allow: [...allow] });
          return Promise.resolve();
        };
    if (access === 'public') return run();
    await access(ctx, run);
  };
  return Object.assign(guard, { routers: [...dispatchers.keys()] });
}
