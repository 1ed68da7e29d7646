import { z } from 'zod';
import { parseEnv } from '@berth/config';

/** The CLI's settings. */
export interface CliConfig {
  /** NATS server(s), comma-separated. */
  readonly natsUrl: string;
}

const cliEnvSchema = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
});

/** Reads the CLI's environment (the process's own unless a map is given). */
export function loadCliConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  return { natsUrl: parseEnv(cliEnvSchema, env).NATS_URL };
}
