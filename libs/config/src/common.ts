import { z } from 'zod';

/** A comma-separated list, trimmed, empty items dropped: `"a, b,"` → `["a", "b"]`. */
export const commaList = z
  .string()
  .optional()
  .transform((value) => (value ?? '').split(',').map((item) => item.trim()).filter((item) => item.length > 0));

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
  MONGO_DB: z.string().default('berth'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().optional(),
});

/** Parsed common variables. */
export type CommonEnv = z.infer<typeof commonEnvSchema>;
