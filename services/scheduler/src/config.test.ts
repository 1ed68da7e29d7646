import { ConfigError } from '@berth/config';
import { loadConfig } from './config';

describe('scheduler config', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toEqual({
      natsUrl: 'nats://127.0.0.1:4222',
      logLevel: 'info',
      logFormat: undefined,
      leaseTtlMs: 10_000,
      tickIntervalMs: 1000,
      graceMs: 21_000,
      healthPort: 9464,
      healthHost: '0.0.0.0',
      otlpEndpoint: undefined,
      serviceName: 'scheduler',
    });
  });

  it('reads the lease, tick and health settings', () => {
    const config = loadConfig({ NATS_URL: 'nats://nats:4222', SCHEDULER_LEASE_TTL_MS: '3000', SCHEDULER_TICK_INTERVAL_MS: '500', HEALTH_PORT: '0', HEALTH_HOST: '127.0.0.1', LOG_FORMAT: 'json' });
    expect(config).toMatchObject({ natsUrl: 'nats://nats:4222', leaseTtlMs: 3000, tickIntervalMs: 500, graceMs: 6500, healthPort: 0, healthHost: '127.0.0.1', logFormat: 'json' });
  });

  it('refuses a lease under 2 s and a tick interval over half the lease', () => {
    expect(() => loadConfig({ SCHEDULER_LEASE_TTL_MS: '1500' })).toThrow(ConfigError);
    expect(() => loadConfig({ SCHEDULER_LEASE_TTL_MS: '3000', SCHEDULER_TICK_INTERVAL_MS: '2000' })).toThrow(/at most half/);
    expect(() => loadConfig({ HEALTH_PORT: 'x' })).toThrow(/HEALTH_PORT/);
  });
});
