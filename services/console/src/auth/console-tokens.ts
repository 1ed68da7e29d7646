import { createHash, timingSafeEqual } from 'node:crypto';
import type { ConsoleRole } from './roles';

/** A token holder as configured (`CONSOLE_TOKENS`). */
export interface ConsoleTokenEntry {
  name: string;
  role: ConsoleRole;
  /** Hex SHA-256 of the token. */
  sha256: string;
}

/** Looks a bearer token up among the configured hashes. */
export interface ConsoleTokenVerifier {
  /** The holder of `token`, or undefined. Compares every entry in constant time. */
  verify(token: string): { name: string; role: ConsoleRole } | undefined;
}

/** Hex SHA-256 of a token, as `CONSOLE_TOKENS` stores it. */
export function hashConsoleToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * A verifier over hashed tokens: the configuration never holds a usable secret, and a lookup compares the digest
 * of the presented token with every entry with `timingSafeEqual`, so timing tells nothing about which entry is close.
 */
export function createConsoleTokenVerifier(entries: readonly ConsoleTokenEntry[]): ConsoleTokenVerifier {
  const digests = entries.map((entry) => ({ entry, digest: Buffer.from(entry.sha256, 'hex') }));
  return {
    verify(token) {
      if (token.length < 16 || token.length > 512) return undefined;
      const presented = createHash('sha256').update(token, 'utf8').digest();
      let found: ConsoleTokenEntry | undefined;
      for (const { entry, digest } of digests) {
        if (timingSafeEqual(presented, digest)) found = entry;
      }
      return found ? { name: found.name, role: found.role } : undefined;
    },
  };
}
