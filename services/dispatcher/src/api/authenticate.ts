import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ApiError } from './read-json-body';

/** What {@link requireBearerToken} checks. */
export interface BearerTokenOptions {
  /** The token every request must present as `Authorization: Bearer <token>`. */
  token: string;
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
 * The access of the management API's routes (given to the shared guard, which decides which routes need it):
 * the request must carry the bearer token, else 401 before the route runs or any body is read.
 * @throws ApiError 401 with `WWW-Authenticate: Bearer`
 */
export function requireBearerToken(options: BearerTokenOptions): Middleware {
  return async (ctx, next) => {
    const presented = bearerTokenOf(ctx.get('authorization'));
    if (presented === undefined || !tokensMatch(presented, options.token)) {
      ctx.set('WWW-Authenticate', 'Bearer realm="berth-dispatcher"');
      throw new ApiError(401, 'unauthorized', 'a valid bearer token is required');
    }
    await next();
  };
}
