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
      shutdownGraceMs: 15_000,
      otlpEndpoint: undefined,
      serviceName: 'scheduler',
      streamReplicas: 1,
      mongoUrl: 'mongodb://127.0.0.1:27017/',
      mongoDb: 'berth',
      webhookEventRetentionDays: 30,
      alertWebhookUrl: undefined,
    });
  });

  it("reads the stream replicas and the platform crons' settings", () => {
    const config = loadConfig({
      STREAM_REPLICAS: '3',
      MONGO_URL: 'mongodb://mongo:27017/?replicaSet=rs0',
      MONGO_DB: 'prod',
      WEBHOOK_EVENT_RETENTION_DAYS: '7',
      ALERT_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x',
    });
    expect(config).toMatchObject({
      streamReplicas: 3,
      mongoUrl: 'mongodb://mongo:27017/?replicaSet=rs0',
      mongoDb: 'prod',
      webhookEventRetentionDays: 7,
      alertWebhookUrl: 'https://hooks.slack.com/services/T/B/x',
    });
    expect(() => loadConfig({ STREAM_REPLICAS: '0' })).toThrow(/STREAM_REPLICAS/);
    expect(() => loadConfig({ WEBHOOK_EVENT_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_EVENT_RETENTION_DAYS/);
    expect(() => loadConfig({ ALERT_WEBHOOK_URL: 'not a url' })).toThrow(/ALERT_WEBHOOK_URL/);
    expect(loadConfig({ ALERT_WEBHOOK_URL: '' }).alertWebhookUrl).toBeUndefined();
  });

  it('reads the lease, tick and health settings', () => {
    const config = loadConfig({
      NATS_URL: 'nats://nats:4222',
      SCHEDULER_LEASE_TTL_MS: '3000',
      SCHEDULER_TICK_INTERVAL_MS: '500',
      HEALTH_PORT: '0',
      HEALTH_HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
    });
    expect(config).toMatchObject({
      natsUrl: 'nats://nats:4222',
      leaseTtlMs: 3000,
      tickIntervalMs: 500,
      graceMs: 6500,
      healthPort: 0,
      healthHost: '127.0.0.1',
      logFormat: 'json',
    });
  });

  it('refuses a lease under 2 s and a tick interval over half the lease', () => {
    expect(() => loadConfig({ SCHEDULER_LEASE_TTL_MS: '1500' })).toThrow(ConfigError);
    expect(() => loadConfig({ SCHEDULER_LEASE_TTL_MS: '3000', SCHEDULER_TICK_INTERVAL_MS: '2000' })).toThrow(
      /at most half/,
    );
    expect(() => loadConfig({ HEALTH_PORT: 'x' })).toThrow(/HEALTH_PORT/);
  });
});
