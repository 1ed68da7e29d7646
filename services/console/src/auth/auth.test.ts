import { createConsoleTokenVerifier, hashConsoleToken } from './console-tokens';
import { issuePortalToken, verifyPortalToken } from './portal-token';
import { createSignedTokens } from './signed-token';
import { checkConfirmation, issueConfirmation, CONFIRMATION_TTL_MS } from '../actions/confirmation';

const KEY = 'k'.repeat(40);
const now = new Date('2026-12-01T10:00:00Z');

describe('console tokens', () => {
  it('knows a configured token by its hash, with its role, and nothing else', () => {
    const verifier = createConsoleTokenVerifier([
      { name: 'alice', role: 'operator', sha256: hashConsoleToken('alice-token-0123456789') },
      { name: 'bob', role: 'viewer', sha256: hashConsoleToken('bob-token-0123456789ab') },
    ]);
    expect(verifier.verify('alice-token-0123456789')).toEqual({ name: 'alice', role: 'operator' });
    expect(verifier.verify('bob-token-0123456789ab')).toEqual({ name: 'bob', role: 'viewer' });
    expect(verifier.verify('alice-token-0123456780')).toBeUndefined();
    expect(verifier.verify(hashConsoleToken('alice-token-0123456789'))).toBeUndefined();
    expect(verifier.verify('')).toBeUndefined();
  });
});

describe('portal tokens', () => {
  const tokens = createSignedTokens(KEY);

  it('grant one workspace until they expire', () => {
    const { token, expiresAt } = issuePortalToken(
      tokens,
      { workspaceId: 'ws_1', subject: 'user_9', ttlSeconds: 600 },
      now,
    );
    expect(expiresAt.toISOString()).toBe('2026-12-01T10:10:00.000Z');
    expect(verifyPortalToken(tokens, token, now)).toEqual({ workspaceId: 'ws_1', subject: 'user_9', expiresAt });
    expect(verifyPortalToken(tokens, token, new Date(expiresAt.getTime()))).toBeUndefined();
  });

  it('refuse a token whose workspace was changed, signed with another key, or made for another purpose', () => {
    const { token } = issuePortalToken(tokens, { workspaceId: 'ws_1', subject: 'u', ttlSeconds: 600 }, now);
    const [body, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${Buffer.from(JSON.stringify({ ...claims, ws: 'ws_2' })).toString('base64url')}.${signature}`;
    expect(verifyPortalToken(tokens, forged, now)).toBeUndefined();
    expect(verifyPortalToken(createSignedTokens('o'.repeat(40)), token, now)).toBeUndefined();
    const confirmation = issueConfirmation(tokens, 'portal.replay', {}, 'x', 1, now);
    expect(verifyPortalToken(tokens, confirmation, now)).toBeUndefined();
    expect(verifyPortalToken(tokens, 'garbage', now)).toBeUndefined();
  });
});

describe('confirmations', () => {
  const tokens = createSignedTokens(KEY);
  const params = { provider: 'stripe', all: true };

  it('confirm the previewed action, with the same parameters (in any key order), by the same actor, for five minutes', () => {
    const token = issueConfirmation(tokens, 'webhooks.retry-abandoned', params, 'alice', 3, now);
    expect(
      checkConfirmation(tokens, token, 'webhooks.retry-abandoned', { all: true, provider: 'stripe' }, 'alice', now),
    ).toBeNull();
    expect(
      checkConfirmation(
        tokens,
        token,
        'webhooks.retry-abandoned',
        params,
        'alice',
        new Date(now.getTime() + CONFIRMATION_TTL_MS),
      ),
    ).toMatch(/expired/);
  });

  it('refuse another action, other parameters, another actor, or none', () => {
    const token = issueConfirmation(tokens, 'webhooks.retry-abandoned', params, 'alice', 3, now);
    expect(checkConfirmation(tokens, token, 'jobs.replay-dead', params, 'alice', now)).toMatch(/another action/);
    expect(checkConfirmation(tokens, token, 'webhooks.retry-abandoned', { all: true }, 'alice', now)).toMatch(
      /other parameters/,
    );
    expect(checkConfirmation(tokens, token, 'webhooks.retry-abandoned', params, 'mallory', now)).toMatch(
      /someone else/,
    );
    expect(checkConfirmation(tokens, undefined, 'webhooks.retry-abandoned', params, 'alice', now)).toMatch(
      /preview it first/,
    );
  });
});
