import type { Context, Middleware, Next } from 'koa';
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
    const session = token ? verifyPortalToken(dependencies.signedTokens, token, dependencies.clock.now()) : undefined;
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

/** The access of each kind of console route, given to the shared guard (`httpGuard`), which decides which applies. */
export interface ConsoleAccess {
  /** A portal token: the portal's routes, scoped to the token's workspace. */
  readonly portal: Middleware;
  /** An `issuer` or `operator` token: minting portal sessions. */
  readonly issuers: Middleware;
  /** An `operator` token: running (and previewing) actions. */
  readonly operators: Middleware;
  /** Any console token: `/api/me`. */
  readonly anyone: Middleware;
  /** A `viewer` or `operator` token: every page's reads (an issuer token reads nothing). */
  readonly readers: Middleware;
}

/** The middleware of each console access ({@link ConsoleAccess}). */
export function consoleAccess(dependencies: ConsoleDependencies): ConsoleAccess {
  return {
    portal: requirePortalSession(dependencies),
    issuers: requireConsoleRole(dependencies, ['issuer', 'operator']),
    operators: requireConsoleRole(dependencies, ['operator']),
    anyone: requireConsoleRole(dependencies, ['viewer', 'operator', 'issuer']),
    readers: requireConsoleRole(dependencies, ['viewer', 'operator']),
  };
}
