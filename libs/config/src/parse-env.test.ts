import { z } from 'zod';
import { ConfigError, booleanFlag, commaList, commonEnvSchema, parseEnv } from './index';

describe('parseEnv', () => {
  it('applies defaults and parses lists and flags', () => {
    const schema = commonEnvSchema.extend({ SECRETS: commaList, ENABLED: booleanFlag(true) });
    const env = parseEnv(schema, { SECRETS: 'a, b,', ENABLED: 'no' });
    expect(env.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(env.SECRETS).toEqual(['a', 'b']);
    expect(env.ENABLED).toBe(false);
  });

  it('names every invalid variable', () => {
    const schema = z.object({ PORT: z.coerce.number().int().positive(), LOG_LEVEL: commonEnvSchema.shape.LOG_LEVEL });
    expect(() => parseEnv(schema, { PORT: '-1', LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    try {
      parseEnv(schema, { PORT: '-1', LOG_LEVEL: 'loud' });
    } catch (error) {
      expect((error as ConfigError).issues.map((issue) => issue.split(':')[0])).toEqual(['PORT', 'LOG_LEVEL']);
    }
  });
});
