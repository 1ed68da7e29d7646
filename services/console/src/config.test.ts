import { ConfigError } from '@berth/config';
import { hashConsoleToken } from './auth/console-tokens';
import { loadConfig } from './config';

const tokens = JSON.stringify([
  { name: 'alice', role: 'operator', sha256: hashConsoleToken('alice-token-0123456789') },
]);
const key = 's'.repeat(32);

describe('console config', () => {
  it('refuses to start without tokens or a signing key: there is no default secret', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({ CONSOLE_SIGNING_KEY: key })).toThrow(/CONSOLE_TOKENS/);
    expect(() => loadConfig({ CONSOLE_TOKENS: tokens })).toThrow(/CONSOLE_SIGNING_KEY/);
    expect(() => loadConfig({ CONSOLE_TOKENS: tokens, CONSOLE_SIGNING_KEY: 'short' })).toThrow(/CONSOLE_SIGNING_KEY/);
  });

  it('takes hashed tokens only, with a known role, and refuses an empty list', () => {
    expect(() => loadConfig({ CONSOLE_TOKENS: '[]', CONSOLE_SIGNING_KEY: key })).toThrow(/at least one/);
    expect(() =>
      loadConfig({
        CONSOLE_TOKENS: JSON.stringify([{ name: 'a', role: 'operator', sha256: 'plaintext-token' }]),
        CONSOLE_SIGNING_KEY: key,
      }),
    ).toThrow(/sha256/);
    expect(() =>
      loadConfig({
        CONSOLE_TOKENS: JSON.stringify([{ name: 'a', role: 'root', sha256: hashConsoleToken('x') }]),
        CONSOLE_SIGNING_KEY: key,
      }),
    ).toThrow(/role/);
    expect(() => loadConfig({ CONSOLE_TOKENS: 'not json', CONSOLE_SIGNING_KEY: key })).toThrow(/not JSON/);
  });

  it('reads a valid environment with its defaults', () => {
    const config = loadConfig({
      CONSOLE_TOKENS: tokens,
      CONSOLE_SIGNING_KEY: key,
      CONSOLE_HEALTH_URLS: '{"gateway":"http://127.0.0.1:3000/readyz"}',
    });
    expect(config.port).toBe(3200);
    expect(config.tokens[0].role).toBe('operator');
    expect(config.healthUrls).toEqual({ gateway: 'http://127.0.0.1:3000/readyz' });
    expect(config.portalTokenTtlSeconds).toBe(900);
    expect(config.jaegerUiUrl).toBeUndefined();
  });
});
