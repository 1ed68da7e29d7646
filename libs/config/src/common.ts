import { z } from 'zod';

/** A comma-separated list, trimmed, empty items dropped: `"a, b,"` → `["a", "b"]`. */
export const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

/** `true/false/1/0/yes/no`, with a default. */
export const booleanFlag = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((value) => (value === undefined ? defaultValue : ['true', '1', 'yes'].includes(value)));

/** The variables every Berth service reads: where NATS and MongoDB are, how to log and trace. */
export const commonEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  MONGO_URL: z.string().default('mongodb://127.0.0.1:27017/'),
  /** Overrides the database named in `MONGO_URL`; see {@link mongoDatabaseName}. */
  MONGO_DB: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().optional(),
});

/** Parsed common variables. */
export type CommonEnv = z.infer<typeof commonEnvSchema>;

/** The database Berth uses when neither `MONGO_DB` nor `MONGO_URL` names one. */
export const DEFAULT_MONGO_DB = 'berth';

/**
 * The database named in a MongoDB connection string (`mongodb://host/myapp?…` → `myapp`), or undefined when it
 * names none. Works for seed lists and `mongodb+srv://`, which `new URL` cannot parse.
 */
export function databaseFromMongoUrl(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]*)/.exec(url.trim());
  const name = match?.[1] ? decodeURIComponent(match[1]) : '';
  return name.length > 0 ? name : undefined;
}

/**
 * The database a service uses: `MONGO_DB` when set, else the one `MONGO_URL` names (as MongoDB's own tools take
 * it), else {@link DEFAULT_MONGO_DB}. Every service and the CLI decide it here.
 */
export function mongoDatabaseName(env: { MONGO_URL: string; MONGO_DB?: string }): string {
  return env.MONGO_DB ?? databaseFromMongoUrl(env.MONGO_URL) ?? DEFAULT_MONGO_DB;
}
