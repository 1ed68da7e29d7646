import type { IncomingMessage, ServerResponse } from 'node:http';
import { pathToRegexp } from 'path-to-regexp';
import { RouteTable, safeDecode, type GuardRefusal } from './route-table';

/** Parameters of a matched route, percent-decoded once, as `@koa/router` gives them. */
export type RouteParams = Readonly<Record<string, string>>;

/** Serves one route on Node's own server; answers through `response` (a rejection is answered 500). */
export type NodeRouteHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  params: RouteParams,
) => void | Promise<void>;

/** One route of a {@link nodeGuard}: `GET` routes also take `HEAD` (Node sends no body then), as `@koa/router`'s do. */
export interface NodeRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A `path-to-regexp` pattern, matched case-sensitively and strictly (`/webhooks/:provider`). */
  readonly path: string;
  readonly serve: NodeRouteHandler;
}

/**
 * Checks a request's credentials before its route runs: resolves true to let it through, or answers it itself
 * (401, 403) and resolves false.
 */
export type NodeRouteAccess = (request: IncomingMessage, response: ServerResponse) => boolean | Promise<boolean>;

/** Routes that share one access: `'public'` (anyone) or the check of {@link NodeRouteAccess}. */
export interface NodeGuardedRoutes {
  readonly routes: readonly NodeRoute[];
  readonly access: 'public' | NodeRouteAccess;
}

/** Options of {@link nodeGuard}. */
export interface NodeGuardOptions {
  /** Answers a refused request. Default: the status with `{ error, message }` JSON and, for a 405, `Allow`. */
  readonly refuse?: (response: ServerResponse, refusal: GuardRefusal) => void;
  /** Told of a route or access check that threw or rejected; the request is answered 500 (or cut, if begun). */
  readonly onError?: (error: unknown, request: IncomingMessage) => void;
}

/** The routes of a guard as a listing names them (route listings, the security campaign). */
export interface ListedRoute {
  readonly methods: readonly string[];
  readonly path: string;
}

/** A request listener for `http.createServer` that also lists the routes it serves. */
export type NodeGuard = ((request: IncomingMessage, response: ServerResponse) => void) & {
  readonly routes: readonly ListedRoute[];
};

interface Target {
  readonly route: NodeRoute;
  readonly paramNames: readonly string[];
}

const JSON_HEADERS = ['Content-Type', 'application/json; charset=utf-8'];
const NOT_FOUND_BODY = '{"error":"not_found","message":"no such route"}';
const METHOD_NOT_ALLOWED_BODY = '{"error":"method_not_allowed","message":"this method is not allowed here"}';
const INTERNAL_ERROR_BODY = '{"error":"internal","message":"the request could not be served"}';

function defaultRefuse(response: ServerResponse, refusal: GuardRefusal): void {
  if (refusal.status === 405) {
    response.writeHead(405, [...JSON_HEADERS, 'Allow', refusal.allow.join(', ')]);
    response.end(METHOD_NOT_ALLOWED_BODY);
  } else {
    response.writeHead(404, JSON_HEADERS);
    response.end(NOT_FOUND_BODY);
  }
}

/** A request-target in absolute form (`http://host/path`), which a server must take as well as `/path`. */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/** The raw path of a request-target, without query or fragment, read as Koa's `ctx.path` reads it. */
function requestPath(url: string): string {
  const origin = url.startsWith('/') ? '' : ABSOLUTE_FORM.exec(url)?.[0];
  const rest = origin ? url.slice(origin.length) || '/' : url;
  const end = rest.search(/[?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/** The route's parameters from what its expression captured, each decoded once (as `@koa/router` does). */
function paramsOf(target: Target, captures: readonly (string | undefined)[]): RouteParams {
  const params: Record<string, string> = {};
  target.paramNames.forEach((name, index) => {
    const captured = captures[index];
    if (captured) params[name] = safeDecode(captured);
  });
  return params;
}

function compile(route: NodeRoute): { regexp: RegExp; paramNames: string[] } {
  if (route.path.length > 1 && route.path.endsWith('/'))
    throw new TypeError(`${route.method} ${route.path}: a route ending in '/' can never be reached`);
  const { regexp, keys } = pathToRegexp(route.path, { sensitive: true, trailing: false });
  return { regexp, paramNames: keys.map((key) => key.name) };
}

/**
 * The guard of an app served by Node's own server (no framework per request: the webhook port, the health port).
 * It decides exactly as {@link httpGuard} does ({@link RouteTable}: canonical spelling, the exact route and no
 * other spelling's, then the route's group), and runs only the route decided on. A path no route takes is 404.
 * @throws TypeError at construction for a route ending in `/`.
 */
export function nodeGuard(groups: readonly NodeGuardedRoutes[], options: NodeGuardOptions = {}): NodeGuard {
  const refuse = options.refuse ?? defaultRefuse;
  const table = new RouteTable<Target>(
    groups.flatMap((group, index) =>
      group.routes.map((route) => {
        const { regexp, paramNames } = compile(route);
        const methods = route.method === 'GET' ? ['HEAD', 'GET'] : [route.method];
        return { group: index, methods, regexp, target: { route, paramNames } };
      }),
    ),
  );

  const fail = (error: unknown, request: IncomingMessage, response: ServerResponse): void => {
    options.onError?.(error, request);
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response.writeHead(500, JSON_HEADERS);
    response.end(INTERNAL_ERROR_BODY);
  };

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = requestPath(request.url ?? '');
    const decision = table.decide(request.method ?? '', path);
    if (decision.kind === 'refused') return refuse(response, decision.refusal);
    const { access } = groups[decision.route.group];
    if (access !== 'public' && !(await access(request, response))) return;
    if (!decision.allowed) return refuse(response, decision.refusal);
    const { target } = decision.route;
    await target.route.serve(request, response, paramsOf(target, decision.captures));
  };

  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    serve(request, response).catch((error: unknown) => fail(error, request, response));
  };
  const routes = table.routes.map((route) => ({ methods: route.methods, path: route.target.route.path }));
  return Object.assign(listener, { routes });
}
