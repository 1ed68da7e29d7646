import type { SignedTokens } from './signed-token';

const PURPOSE = 'berth-portal-v1';

/** What a portal token grants: one workspace, until `expiresAt`. */
export interface PortalSession {
  workspaceId: string;
  /** Who in the product the link was made for (logged with every portal action). */
  subject: string;
  expiresAt: Date;
}

/** Mints a portal token: short-lived, signed, scoped to one workspace. */
export function issuePortalToken(
  tokens: SignedTokens,
  session: { workspaceId: string; subject: string; ttlSeconds: number },
  now: Date,
): { token: string; expiresAt: Date } {
  const expiresAt = new Date(now.getTime() + session.ttlSeconds * 1000);
  const token = tokens.sign(PURPOSE, {
    ws: session.workspaceId,
    sub: session.subject,
    iat: Math.floor(now.getTime() / 1000),
    exp: Math.floor(expiresAt.getTime() / 1000),
  });
  return { token, expiresAt };
}

/** The session a portal token grants at `now`, or undefined when it is forged, malformed or expired. */
export function verifyPortalToken(tokens: SignedTokens, token: string, now: Date): PortalSession | undefined {
  const claims = tokens.verify(PURPOSE, token);
  if (!claims || typeof claims.ws !== 'string' || typeof claims.sub !== 'string' || typeof claims.exp !== 'number')
    return undefined;
  if (claims.exp * 1000 <= now.getTime()) return undefined;
  return { workspaceId: claims.ws, subject: claims.sub, expiresAt: new Date(claims.exp * 1000) };
}
