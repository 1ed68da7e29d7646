import { ConfigError } from '@berth/config';
import { loadConfig } from './config';

describe('dispatcher loadConfig', () => {
  it('defaults to the Svix schedule, a strict SSRF policy and 5 days before an endpoint is disabled', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3100,
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: [],
      OUTBOUND_RETRY_SCHEDULE_MS: [],
      OUTBOUND_TIMEOUT_MS: 15_000,
      OUTBOUND_DISABLE_AFTER_FAILING_DAYS: 5,
      OUTBOUND_DELIVERY_RETENTION_DAYS: 30,
      DISPATCHER_ENDPOINT_CONCURRENCY: 16,
      DISPATCHER_RATE_LIMIT_SHARE: 1,
    });
    expect(config.DISPATCHER_API_TOKEN).toBeUndefined();
  });

  it('reads a compressed schedule and the private networks allowed', () => {
    const config = loadConfig({ OUTBOUND_RETRY_SCHEDULE_MS: '0, 100,200', OUTBOUND_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8, ::1/128', DISPATCHER_API_TOKEN: '' });
    expect(config.OUTBOUND_RETRY_SCHEDULE_MS).toEqual([0, 100, 200]);
    expect(config.OUTBOUND_ALLOW_PRIVATE_NETWORKS).toEqual(['127.0.0.0/8', '::1/128']);
    expect(config.DISPATCHER_API_TOKEN).toBeUndefined();
  });

  it('names every invalid variable', () => {
    try {
      loadConfig({ OUTBOUND_RETRY_SCHEDULE_MS: '0,soon', OUTBOUND_RETRY_JITTER: '2', DISPATCHER_API_TOKEN: 'short' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues.map((issue) => issue.split(/[.:]/)[0])).toEqual(expect.arrayContaining(['OUTBOUND_RETRY_SCHEDULE_MS', 'OUTBOUND_RETRY_JITTER', 'DISPATCHER_API_TOKEN']));
    }
  });
});
