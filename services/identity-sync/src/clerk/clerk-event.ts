import { z } from 'zod';
import { UnrecoverableError } from '@berth/messaging';

/** A Clerk webhook body: `{ type, timestamp, data }` (Svix delivers it; the gateway verified it). */
export const clerkEnvelopeSchema = z.object({
  type: z.string(),
  /** When Clerk emitted the event, ms since the epoch. */
  timestamp: z.number().optional(),
  data: z.looseObject({ id: z.string().min(1) }),
});

/** A parsed Clerk webhook body. */
export type ClerkEnvelope = z.infer<typeof clerkEnvelopeSchema>;

/** What Clerk entity an event is about. */
export type ClerkEntity = 'user' | 'organization' | 'membership';

/** What an event type asks identity-sync to do. */
export type ClerkChange = { entity: ClerkEntity; action: 'upsert' | 'delete' } | { entity: null; action: 'ignore' };

const ENTITY_BY_PREFIX: Record<string, ClerkEntity> = {
  user: 'user',
  organization: 'organization',
  organizationMembership: 'membership',
};

/** Sorts Clerk event types: `<user|organization|organizationMembership>.<created|updated|deleted>`, others ignored. */
export function classifyClerkEvent(type: string): ClerkChange {
  const [prefix, verb, ...rest] = type.split('.');
  const entity = ENTITY_BY_PREFIX[prefix];
  if (!entity || rest.length > 0) return { entity: null, action: 'ignore' };
  if (verb === 'created' || verb === 'updated') return { entity, action: 'upsert' };
  if (verb === 'deleted') return { entity, action: 'delete' };
  return { entity: null, action: 'ignore' };
}

/** Validates `value` with `schema`, or throws {@link UnrecoverableError} naming what is wrong: retrying cannot fix a payload. */
export function parseOrGiveUp<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new UnrecoverableError(
      `Invalid ${what}: ${result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
    );
  }
  return result.data;
}

/** A Clerk ms timestamp as a Date. */
export function fromClerkTime(ms: number | null | undefined): Date | null {
  return typeof ms === 'number' ? new Date(ms) : null;
}
