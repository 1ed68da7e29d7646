import type { Context, Next } from 'koa';
import { ConsoleError } from '../errors';
import type { ConsoleDependencies } from '../dependencies';
import { verifyPortalToken } from './portal-token';
import type { Actor, ConsoleRole } from './roles';

function bearerOf(ctx: Context): string | undefined {
  const header = ctx.get('authorization');
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/** The actor a request authenticated as (set by {@link requireConsoleRole} or {@link requirePortalSession}). */
export function actorOf(ctx: Context): Actor {
  const actor = (ctx.state as { actor?: Actor }).actor;
  if (!actor) throw new ConsoleError(401, 'unauthorized', 'sign in first');
  return actor;
}

/**
 * Middleware: a console token of one of `roles` is required (`Authorization: Bearer <token>`): 401 without a valid
 * token, 403 with a token whose role may not do this. Tokens are never read from a cookie, so no other site can make
 * a browser send one (no CSRF).
 */
export function requireConsoleRole(dependencies: ConsoleDependencies, roles: readonly ConsoleRole[]) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const token = bearerOf(ctx);
    const holder = token ? dependencies.consoleTokens.verify(token) : undefined;
    if (!holder) throw new ConsoleError(401, 'unauthorized', 'a valid console token is required');
    if (!roles.includes(holder.role))
      throw new ConsoleError(403, 'forbidden', `the ${holder.role} role may not do this (needs ${roles.join(' or ')})`);
    (ctx.state as { actor?: Actor }).actor = { kind: 'console', ...holder };
    await next();
  };
}

/** Middleware: a portal token (signed, not expired) is required; the session's workspace scopes everything after. */
export function requirePortalSession(dependencies: ConsoleDependencies) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const token = bearerOf(ctx);
    const session = token ? verifyPortalToken(dependencies.signedTokens, token, dependencies.clock()) : undefined;
    if (!session)
      throw new ConsoleError(
        401,
        'unauthorized',
        'this portal link is invalid or has expired: open the portal again from the product',
      );
    (ctx.state as { actor?: Actor }).actor = {
      kind: 'portal',
      workspaceId: session.workspaceId,
      subject: session.subject,
      expiresAt: session.expiresAt,
    };
    await next();
  };
}

/**
 * Who may call a path of the API; the one place that decides it, before any route runs (deny by default: every
 * `/api/` path not listed needs a reading console role).
 */
export function authorize(dependencies: ConsoleDependencies) {
  const portal = requirePortalSession(dependencies);
  const issuers = requireConsoleRole(dependencies, ['issuer', 'operator']);
  const operators = requireConsoleRole(dependencies, ['operator']);
  const anyone = requireConsoleRole(dependencies, ['viewer', 'operator', 'issuer']);
  const readers = requireConsoleRole(dependencies, ['viewer', 'operator']);
  return async (ctx: Context, next: Next): Promise<void> => {
    const path = ctx.path;
    if (!path.startsWith('/api/') && path !== '/api') return next();
    if (path === '/api/portal-sessions' || path.startsWith('/api/portal-sessions/')) return issuers(ctx, next);
    if (path.startsWith('/api/portal/')) return portal(ctx, next);
    if (path.startsWith('/api/actions/')) return operators(ctx, next);
    if (path === '/api/me') return anyone(ctx, next);
    return readers(ctx, next);
  };
}
