import { ConfigError } from '@berth/config';
import { loadConfig, MIN_API_TOKEN_LENGTH } from './config';

const TOKEN = 'dispatcher-config-test-token-0123456789';

function issuesOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe('dispatcher loadConfig', () => {
  it('defaults to the Svix schedule, a strict SSRF policy and 5 days before an endpoint is disabled', () => {
    const config = loadConfig({ DISPATCHER_API_TOKEN: TOKEN });
    expect(config).toMatchObject({
      port: 3100,
      allowPrivateNetworks: [],
      retryScheduleMs: [],
      timeoutMs: 15_000,
      disableAfterFailingDays: 5,
      deliveryRetentionDays: 30,
      endpointConcurrency: 16,
      apiToken: TOKEN,
      insecureNoAuth: false,
    });
  });

  it('reads a compressed schedule and the private networks allowed', () => {
    const config = loadConfig({
      OUTBOUND_RETRY_SCHEDULE_MS: '0, 100,200',
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8, ::1/128',
      DISPATCHER_API_TOKEN: TOKEN,
    });
    expect(config.retryScheduleMs).toEqual([0, 100, 200]);
    expect(config.allowPrivateNetworks).toEqual(['127.0.0.0/8', '::1/128']);
  });

  it('refuses to run the management API open: no token (unset or empty) is an error unless DISPATCHER_INSECURE_NO_AUTH=true', () => {
    expect(issuesOf({})).toEqual([expect.stringMatching(/^DISPATCHER_API_TOKEN: required/)]);
    expect(issuesOf({ DISPATCHER_API_TOKEN: '' })).toEqual([expect.stringMatching(/^DISPATCHER_API_TOKEN: required/)]);
    expect(issuesOf({ DISPATCHER_INSECURE_NO_AUTH: 'false' })).toEqual([
      expect.stringMatching(/^DISPATCHER_API_TOKEN: required/),
    ]);
    const insecure = loadConfig({ DISPATCHER_INSECURE_NO_AUTH: 'true' });
    expect(insecure.apiToken).toBeUndefined();
    expect(insecure.insecureNoAuth).toBe(true);
    expect(issuesOf({ DISPATCHER_INSECURE_NO_AUTH: 'true', DISPATCHER_API_TOKEN: TOKEN })).toEqual([
      expect.stringMatching(/^DISPATCHER_INSECURE_NO_AUTH: /),
    ]);
  });

  it(`needs a token of at least ${MIN_API_TOKEN_LENGTH} characters that fits in a bearer header`, () => {
    expect(issuesOf({ DISPATCHER_API_TOKEN: 'x'.repeat(MIN_API_TOKEN_LENGTH - 1) })[0]).toMatch(
      /^DISPATCHER_API_TOKEN/,
    );
    expect(issuesOf({ DISPATCHER_API_TOKEN: `${'x'.repeat(MIN_API_TOKEN_LENGTH)} y` })[0]).toMatch(
      /^DISPATCHER_API_TOKEN/,
    );
    expect(loadConfig({ DISPATCHER_API_TOKEN: 'x'.repeat(MIN_API_TOKEN_LENGTH) }).apiToken).toHaveLength(
      MIN_API_TOKEN_LENGTH,
    );
  });

  it('names every invalid variable', () => {
    const issues = issuesOf({
      OUTBOUND_RETRY_SCHEDULE_MS: '0,soon',
      OUTBOUND_RETRY_JITTER: '2',
      DISPATCHER_API_TOKEN: 'short',
    });
    expect(issues.map((issue) => issue.split(/[.:]/)[0])).toEqual(
      expect.arrayContaining(['OUTBOUND_RETRY_SCHEDULE_MS', 'OUTBOUND_RETRY_JITTER', 'DISPATCHER_API_TOKEN']),
    );
  });
});
