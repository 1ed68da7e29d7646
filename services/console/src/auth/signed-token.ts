import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Compact signed tokens: `<base64url(JSON claims)>.<base64url(HMAC-SHA256(purpose + "." + claims))>`. The purpose
 * is part of what is signed, so a token made for one use (a portal session) is never accepted for another (a
 * confirmation).
 */
export interface SignedTokens {
  sign(purpose: string, claims: Record<string, unknown>): string;
  /** The claims, or undefined when the token is malformed, for another purpose or not signed with this key. */
  verify(purpose: string, token: string): Record<string, unknown> | undefined;
}

/** Signed tokens under one key (`CONSOLE_SIGNING_KEY`). */
export function createSignedTokens(key: string): SignedTokens {
  const mac = (purpose: string, body: string): Buffer =>
    createHmac('sha256', key).update(`${purpose}.${body}`).digest();
  return {
    sign(purpose, claims) {
      const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
      return `${body}.${mac(purpose, body).toString('base64url')}`;
    },
    verify(purpose, token) {
      const parts = token.split('.');
      if (parts.length !== 2 || token.length > 4096) return undefined;
      const [body, signature] = parts;
      const expected = mac(purpose, body);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
        return claims !== null && typeof claims === 'object' && !Array.isArray(claims)
          ? (claims as Record<string, unknown>)
          : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
