/**
 * What a console token may do:
 * - `viewer`: read every page (payloads masked unless asked, and asking is logged);
 * - `operator`: also run actions (redeliver, retry, replay, enable/disable, rotate), each confirmed and logged;
 * - `issuer`: only mint portal tokens, for the product's back end that links customers to the portal.
 */
export const CONSOLE_ROLES = ['viewer', 'operator', 'issuer'] as const;

/** A console role. */
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** Who made a request: a console token's holder, or a portal session of one workspace. */
export type Actor =
  | { kind: 'console'; name: string; role: ConsoleRole }
  | { kind: 'portal'; workspaceId: string; subject: string; expiresAt: Date };

/** The name an actor is logged under: `alice (operator)`, `portal:ws_1:user_9`. */
export function actorName(actor: Actor): string {
  return actor.kind === 'console' ? actor.name : `portal:${actor.workspaceId}:${actor.subject}`;
}

/** True when a console actor's role reads the console's pages. */
export function canRead(actor: Actor): boolean {
  return actor.kind === 'console' && (actor.role === 'viewer' || actor.role === 'operator');
}
