import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ApiError } from './read-json-body';

/** What {@link requireBearerToken} checks. */
export interface BearerTokenOptions {
  /** The token every request must present as `Authorization: Bearer <token>`. */
  token: string;
  /**
   * Request paths served without the token, compared byte for byte with the raw path (`ctx.path`): the probes
   * (`/healthz`, `/readyz`, `/metrics`). Any other spelling, `/HEALTHZ` or `/healthz/`, needs the token.
   */
  publicPaths: readonly string[];
  /** Methods the public paths are open to. */
  publicMethods?: readonly string[];
}

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Whether `presented` is `token`, in time independent of where they differ and of their lengths: both are hashed to
 * 32 bytes first, then compared with `timingSafeEqual`.
 */
export function tokensMatch(presented: string, token: string): boolean {
  return timingSafeEqual(digest(presented), digest(token));
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, RFC 7235), or undefined. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * Default deny: every request needs the bearer token, whatever route it reaches or however its path is spelled,
 * except the exact public paths with a public method. Placed before every router, so that no path the router
 * serves (it matches case-insensitively, with or without a trailing slash) escapes the check.
 * @throws ApiError 401 with `WWW-Authenticate: Bearer`
 */
export function requireBearerToken(options: BearerTokenOptions): Middleware {
  const publicPaths = new Set(options.publicPaths);
  const publicMethods = new Set(options.publicMethods ?? ['GET', 'HEAD']);
  return async (ctx, next) => {
    if (!(publicPaths.has(ctx.path) && publicMethods.has(ctx.method))) {
      const presented = bearerTokenOf(ctx.get('authorization'));
      if (presented === undefined || !tokensMatch(presented, options.token)) {
        ctx.set('WWW-Authenticate', 'Bearer realm="berth-dispatcher"');
        throw new ApiError(401, 'unauthorized', 'a valid bearer token is required');
      }
    }
    await next();
  };
}
