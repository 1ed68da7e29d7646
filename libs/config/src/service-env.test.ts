import { commonEnvSchema } from './common';
import { parseEnv } from './parse-env';
import { healthEnvFields, lifecycleEnvFields, positiveInt, webhookConsumerEnvFields } from './service-env';

const schema = commonEnvSchema.extend({
  SIZE: positiveInt(8),
  ...healthEnvFields(9464),
  ...lifecycleEnvFields(25_000),
});

describe('the service variables', () => {
  it('default the health port whatever NODE_ENV says, and bound every value', () => {
    for (const NODE_ENV of ['development', 'production', 'test']) {
      expect(parseEnv(schema, { NODE_ENV })).toMatchObject({
        SIZE: 8,
        HEALTH_PORT: 9464,
        HEALTH_HOST: '0.0.0.0',
        SHUTDOWN_GRACE_MS: 25_000,
        STREAM_REPLICAS: 1,
      });
    }
    expect(parseEnv(schema, { HEALTH_PORT: '0', STREAM_REPLICAS: '3', SHUTDOWN_GRACE_MS: '5000' })).toMatchObject({
      HEALTH_PORT: 0,
      STREAM_REPLICAS: 3,
      SHUTDOWN_GRACE_MS: 5000,
    });
    expect(() => parseEnv(schema, { SIZE: '0' })).toThrow(/SIZE/);
    expect(() => parseEnv(schema, { HEALTH_PORT: '65536' })).toThrow(/HEALTH_PORT/);
    expect(() => parseEnv(schema, { STREAM_REPLICAS: '6' })).toThrow(/STREAM_REPLICAS/);
    expect(() => parseEnv(schema, { SHUTDOWN_GRACE_MS: '-1' })).toThrow(/SHUTDOWN_GRACE_MS/);
  });

  it('give a webhook consumer service the inbox lease and the metrics cache besides', () => {
    const consumer = commonEnvSchema.extend(webhookConsumerEnvFields({ healthPort: 9465 }));
    expect(parseEnv(consumer, {})).toMatchObject({
      INBOX_LEASE_MS: 60_000,
      METRICS_READ_CACHE_MS: 5000,
      SHUTDOWN_GRACE_MS: 25_000,
      HEALTH_PORT: 9465,
    });
    expect(parseEnv(consumer, { METRICS_READ_CACHE_MS: '0' }).METRICS_READ_CACHE_MS).toBe(0);
  });
});
