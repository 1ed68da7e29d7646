import { z } from 'zod';
import { commonEnvSchema, parseEnv } from '@berth/config';

const positiveInt = (defaultValue: number) => z.coerce.number().int().positive().default(defaultValue);

/** identity-sync's environment: the common variables plus its consumer's sizing. */
export const identitySyncEnvSchema = commonEnvSchema.extend({
  /** Events handled at once by one replica. */
  IDENTITY_SYNC_CONCURRENCY: positiveInt(16),
  /** JetStream ack wait of the `identity-sync` consumer; running handlers send `working()` meanwhile. */
  IDENTITY_SYNC_ACK_WAIT_MS: positiveInt(30000),
  /** How long an inbox claim holds without renewal (renewed every third while the handler runs). */
  INBOX_LEASE_MS: positiveInt(60000),
  /** On SIGTERM, how long running handlers may take to finish. */
  SHUTDOWN_GRACE_MS: positiveInt(25000),
});

/** identity-sync's validated configuration. */
export type IdentitySyncConfig = z.infer<typeof identitySyncEnvSchema>;

/**
 * Reads and validates identity-sync's environment. The only place in the service that reads `process.env` (when
 * called without an argument, as `main.ts` does); tests pass a map.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): IdentitySyncConfig {
  return parseEnv(identitySyncEnvSchema, env);
}
