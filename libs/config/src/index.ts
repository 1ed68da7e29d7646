export { parseEnv, ConfigError } from './parse-env';
export { commonEnvSchema, commaList, booleanFlag } from './common';
export type { CommonEnv } from './common';
