import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../support/service-process';

/** Berth's NATS users, as deploy/nats/auth.conf declares them: one a service, and the operator's. */
export const NATS_USERS = [
  'gateway',
  'billing-sync',
  'identity-sync',
  'scheduler',
  'app-worker',
  'dispatcher',
  'operator',
] as const;
export type NatsUser = (typeof NATS_USERS)[number];

/** The config variable auth.conf reads `user`'s password from (`NATS_BILLING_SYNC_PASSWORD`, …). */
export const passwordVariable = (user: NatsUser): string => `NATS_${user.toUpperCase().replace(/-/g, '_')}_PASSWORD`;

/** A fresh random password for each user, in `encoding` (base64url ones need URL-encoding in a NATS URL). */
export function randomNatsPasswords(encoding: 'hex' | 'base64url'): Record<NatsUser, string> {
  return Object.fromEntries(NATS_USERS.map((user) => [user, randomBytes(18).toString(encoding)])) as Record<
    NatsUser,
    string
  >;
}

/**
 * The `startNatsServer` options that run deploy/nats/auth.conf verbatim, as compose and Kubernetes do, with
 * `passwords` as its config variables.
 */
export function authConfOptions(passwords: Record<NatsUser, string>): {
  extraConfig: string;
  configVariables: Record<string, string>;
} {
  return {
    extraConfig: readFileSync(join(repoRoot, 'deploy/nats/auth.conf'), 'utf8'),
    configVariables: Object.fromEntries(NATS_USERS.map((user) => [passwordVariable(user), passwords[user]])),
  };
}
