import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Marks the lease owners of the inbox operations (recovery, retry-abandoned, redeliver), as opposed to consumer
 * replicas: an attempt that finds an event held by one waits a moment for it instead of giving its delivery back
 * (see `processInboxEvent`), since an operation holds an event's lease for a few writes only.
 */
export const OPERATION_OWNER_PREFIX = 'inbox-op:';

/** A lease owner id for an inbox operation run: `inbox-op:<what>:<hostname>:<pid>:<random>`. */
export function operationOwner(what: string): string {
  return `${OPERATION_OWNER_PREFIX}${what}:${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/** An operation's lease owner id from the one given (prefixed when it is not yet), or a new one for `what`. */
export function asOperationOwner(given: string | undefined, what: string): string {
  if (!given) return operationOwner(what);
  return given.startsWith(OPERATION_OWNER_PREFIX) ? given : `${OPERATION_OWNER_PREFIX}${given}`;
}

/** Whether a lease holder is an inbox operation. */
export function isOperationOwner(holder: string): boolean {
  return holder.startsWith(OPERATION_OWNER_PREFIX);
}

/** How long the inbox operations hold an event's lease at most: far more than their few writes and one alert take. */
export const OPERATION_LEASE_MS = 30_000;
