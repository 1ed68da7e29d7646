import { randomBytes } from 'node:crypto';
import { NATS_USERS, type NatsUser } from '../../../deploy/local/nats-users';

export { authConfOptions, NATS_USERS, passwordVariable, type NatsUser } from '../../../deploy/local/nats-users';

/** A fresh random password for each user, in `encoding` (base64url ones need URL-encoding in a NATS URL). */
export function randomNatsPasswords(encoding: 'hex' | 'base64url'): Record<NatsUser, string> {
  return Object.fromEntries(NATS_USERS.map((user) => [user, randomBytes(18).toString(encoding)])) as Record<
    NatsUser,
    string
  >;
}
