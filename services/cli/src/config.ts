import { z } from 'zod';
import { parseEnv } from '@berth/config';

/** Where the webhook inbox is when `MONGO_URL` / `MONGO_DB` are unset (the services' defaults). */
export const DEFAULT_MONGO_URL = 'mongodb://127.0.0.1:27017/';
export const DEFAULT_MONGO_DB = 'berth';

/** The CLI's settings. */
export interface CliConfig {
  /** NATS server(s), comma-separated. */
  readonly natsUrl: string;
  /** The MongoDB holding the webhook inbox (`berth webhooks …`); {@link DEFAULT_MONGO_URL} when unset. */
  readonly mongoUrl?: string;
  /** Its database; {@link DEFAULT_MONGO_DB} when unset. */
  readonly mongoDb?: string;
}

const cliEnvSchema = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  MONGO_URL: z.string().min(1).default(DEFAULT_MONGO_URL),
  MONGO_DB: z.string().min(1).default(DEFAULT_MONGO_DB),
});

/** Reads the CLI's environment (the process's own unless a map is given). */
export function loadCliConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  const parsed = parseEnv(cliEnvSchema, env);
  return { natsUrl: parsed.NATS_URL, mongoUrl: parsed.MONGO_URL, mongoDb: parsed.MONGO_DB };
}
