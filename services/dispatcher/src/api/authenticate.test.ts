import { bearerTokenOf, tokensMatch } from './authenticate';

describe('bearer token checks', () => {
  const token = 'a'.repeat(16) + 'Z9-._~+/';

  it('reads the token of a Bearer header, scheme in any case, nothing else', () => {
    expect(bearerTokenOf(`Bearer ${token}`)).toBe(token);
    expect(bearerTokenOf(`bearer ${token}`)).toBe(token);
    for (const header of [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      token,
      `Basic ${token}`,
      `Bearer ${token} x`,
      `Bearer ${token},Bearer ${token}`,
      `Bearer  ${token}`,
      `Token ${token}`,
    ]) {
      expect([header, bearerTokenOf(header)]).toEqual([header, undefined]);
    }
  });

  it('matches the token only, whatever the length of what is presented', () => {
    expect(tokensMatch(token, token)).toBe(true);
    for (const presented of ['', token.slice(0, -1), `${token}x`, token.toUpperCase(), 'x'.repeat(10_000)])
      expect(tokensMatch(presented, token)).toBe(false);
  });
});
