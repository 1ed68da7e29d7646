import { commonEnvSchema } from './common';
import { parseEnv } from './parse-env';
import { commonConfig, mongoConfig, webhookConsumerConfig } from './service-config';
import { webhookConsumerEnvFields } from './service-env';

const schema = commonEnvSchema.extend(webhookConsumerEnvFields({ healthPort: 9465 }));

describe('the camelCase configuration', () => {
  it('carries every common and webhook consumer variable under one camelCase name', () => {
    const parsed = parseEnv(schema, {
      NATS_URL: 'nats://nats:4222',
      MONGO_URL: 'mongodb://db:27017/app',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:4318',
      INBOX_LEASE_MS: '30000',
      HEALTH_PORT: '0',
    });
    expect({ ...commonConfig(parsed, 'svc'), ...mongoConfig(parsed), ...webhookConsumerConfig(parsed) }).toEqual({
      natsUrl: 'nats://nats:4222',
      logLevel: 'warn',
      logFormat: 'json',
      otlpEndpoint: 'http://otel:4318',
      serviceName: 'svc',
      mongoUrl: 'mongodb://db:27017/app',
      mongoDb: 'app',
      inboxLeaseMs: 30_000,
      metricsReadCacheMs: 5000,
      shutdownGraceMs: 25_000,
      streamReplicas: 1,
      healthPort: 0,
      healthHost: '0.0.0.0',
    });
  });

  it('takes OTEL_SERVICE_NAME and MONGO_DB over the defaults', () => {
    const parsed = parseEnv(schema, { OTEL_SERVICE_NAME: 'named', MONGO_URL: 'mongodb://db/app', MONGO_DB: 'other' });
    expect(commonConfig(parsed, 'svc').serviceName).toBe('named');
    expect(mongoConfig(parsed).mongoDb).toBe('other');
    expect(mongoConfig(parseEnv(schema, {})).mongoDb).toBe('berth');
  });
});
