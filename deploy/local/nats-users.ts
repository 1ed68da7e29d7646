/**
 * Berth's NATS users (deploy/nats/auth.conf, the file compose and Kubernetes run) for the servers Berth starts
 * itself: `npm start`, `npm run soak`, `npm run bench:e2e` and every cross-service test mesh run nats-server with
 * that file verbatim, its `$NATS_<USER>_PASSWORD` variables given as configuration variables, and each service
 * connects as its own user, as in production. Also the check that nothing was refused: nats-server logs each
 * refused publish or subscription (`Publish Violation`, `Subscription Violation`), and a mesh whose log holds one
 * fails (a service lacking a permission in production lacks it here too).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

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

/** deploy/nats/auth.conf. */
export const AUTH_CONF_FILE = join(resolve(__dirname, '..', '..'), 'deploy', 'nats', 'auth.conf');

/** The variable auth.conf reads `user`'s password from (`NATS_BILLING_SYNC_PASSWORD`, …), as compose names it. */
export const passwordVariable = (user: NatsUser): string => `NATS_${user.toUpperCase().replace(/-/g, '_')}_PASSWORD`;

/** The NATS user each compose service connects as (the console reads and replays as the operator does). */
export function natsUserOf(service: string): NatsUser | undefined {
  if (service === 'console') return 'operator';
  return (NATS_USERS as readonly string[]).includes(service) ? (service as NatsUser) : undefined;
}

/**
 * The `startNatsServer` options that run deploy/nats/auth.conf verbatim, with `passwords` as its configuration
 * variables (never on a command line or in an environment).
 */
export function authConfOptions(passwords: Readonly<Record<NatsUser, string>>): {
  extraConfig: string;
  configVariables: Record<string, string>;
} {
  return {
    extraConfig: readFileSync(AUTH_CONF_FILE, 'utf8'),
    configVariables: Object.fromEntries(NATS_USERS.map((user) => [passwordVariable(user), passwords[user]])),
  };
}

/** The passwords of `secrets` (`NATS_<USER>_PASSWORD` keys, e.g. `.data/local-secrets.json`), by user. */
export function natsPasswordsFrom(secrets: Readonly<Record<string, string | undefined>>): Record<NatsUser, string> {
  return Object.fromEntries(
    NATS_USERS.map((user) => {
      const password = secrets[passwordVariable(user)];
      if (!password) throw new Error(`${passwordVariable(user)} has no value`);
      return [user, password];
    }),
  ) as Record<NatsUser, string>;
}

/** `url` (`nats://127.0.0.1:4250`) with `user` and `password` in it, both URL-encoded. */
export function natsUrlAs(url: string, user: NatsUser, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(user);
  parsed.password = encodeURIComponent(password);
  return parsed.toString().replace(/\/$/, '');
}

/**
 * The permission violations in a nats-server log: every line of a publish or subscription it refused
 * (`Publish Violation - User "gateway", Subject "…"`), and the clients' own reports of one.
 */
export function permissionViolations(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => /Publish Violation|Subscription Violation|Permissions Violation/i.test(line))
    .map((line) => line.trim());
}
