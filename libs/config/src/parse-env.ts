import type { z } from 'zod';

/** Raised at boot when a service's environment does not satisfy its schema; the message lists every problem. */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  - ${issues.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates an environment map against a zod schema. Services call this once at boot with `process.env`; tests
 * pass their own map. Throws {@link ConfigError} naming every invalid variable.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return result.data;
}
