import { createHash } from 'node:crypto';
import type { SignedTokens } from '../auth/signed-token';

const PURPOSE = 'berth-confirm-v1';
/** How long a preview's confirmation stays valid. */
export const CONFIRMATION_TTL_MS = 5 * 60 * 1000;

/** The same parameters in any key order give the same digest. */
function digestOf(params: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, v]) => [k, canonical(v)]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify(canonical(params)))
    .digest('base64url');
}

/**
 * A confirmation: what a preview (dry run) hands back and the action then requires. It binds the action, its exact
 * parameters and the actor, and expires, so a confirmation can be neither reused for other parameters nor by
 * someone else, and nothing runs that nobody looked at first.
 */
export function issueConfirmation(
  tokens: SignedTokens,
  action: string,
  params: unknown,
  actor: string,
  count: number,
  now: Date,
): string {
  return tokens.sign(PURPOSE, {
    a: action,
    p: digestOf(params),
    u: actor,
    n: count,
    exp: now.getTime() + CONFIRMATION_TTL_MS,
  });
}

/** Why a confirmation is refused, or null when it confirms this action, these parameters, this actor. */
export function checkConfirmation(
  tokens: SignedTokens,
  token: unknown,
  action: string,
  params: unknown,
  actor: string,
  now: Date,
): string | null {
  if (typeof token !== 'string' || token === '') return 'this action needs a confirmation: preview it first';
  const claims = tokens.verify(PURPOSE, token);
  if (!claims) return 'the confirmation is not valid';
  if (claims.a !== action || claims.p !== digestOf(params) || claims.u !== actor)
    return 'the confirmation was made for another action, other parameters or someone else';
  if (typeof claims.exp !== 'number' || claims.exp <= now.getTime())
    return 'the confirmation expired: preview the action again';
  return null;
}
