import { createEventCatalog, type EventCatalog, type EventTypeDefinition } from './event-catalog';

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';
const isoDate = { type: 'string', format: 'date-time' } as const;

/** The test event the endpoint portal sends on a customer's request: carries nothing but a note. */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * The event types Berth's product sends to its customers' endpoints. Register a new type here, with its JSON Schema
 * and an example, in the same change as the `send()` that emits it: the dispatcher serves this list
 * (`GET /v1/event-types`) and the endpoint portal shows it to customers choosing what to subscribe to.
 */
export const BERTH_EVENT_TYPES: readonly EventTypeDefinition[] = [
  {
    type: TEST_EVENT_TYPE,
    group: 'testing',
    description: 'Sent when you press "Send test event" in the portal; nothing happened in your account.',
    schema: {
      $schema: SCHEMA,
      type: 'object',
      required: ['message', 'sentAt'],
      properties: { message: { type: 'string' }, sentAt: isoDate },
      additionalProperties: false,
    },
    example: { message: 'This is a test event from Berth.', sentAt: '2026-01-01T00:00:00.000Z' },
  },
  {
    type: 'invoice.paid',
    group: 'billing',
    description: 'An invoice of the workspace was paid in full.',
    schema: {
      $schema: SCHEMA,
      type: 'object',
      required: ['invoiceId', 'amount', 'currency', 'paidAt'],
      properties: {
        invoiceId: { type: 'string' },
        amount: { type: 'integer', minimum: 0, description: 'In the smallest unit of the currency (cents).' },
        currency: { type: 'string', pattern: '^[a-z]{3}$' },
        paidAt: isoDate,
      },
      additionalProperties: false,
    },
    example: { invoiceId: 'in_1Q2w3E', amount: 4900, currency: 'eur', paidAt: '2026-01-01T00:00:00.000Z' },
  },
  {
    type: 'subscription.updated',
    group: 'billing',
    description: "The workspace's plan, seat count or status changed.",
    schema: {
      $schema: SCHEMA,
      type: 'object',
      required: ['subscriptionId', 'status', 'plan', 'seats'],
      properties: {
        subscriptionId: { type: 'string' },
        status: { enum: ['trialing', 'active', 'past_due', 'canceled', 'unpaid'] },
        plan: { type: 'string' },
        seats: { type: 'integer', minimum: 0 },
        currentPeriodEnd: isoDate,
      },
      additionalProperties: false,
    },
    example: {
      subscriptionId: 'sub_9Z8y7X',
      status: 'active',
      plan: 'team',
      seats: 12,
      currentPeriodEnd: '2026-02-01T00:00:00.000Z',
    },
  },
  {
    type: 'member.added',
    group: 'members',
    description: 'A person joined the workspace.',
    schema: {
      $schema: SCHEMA,
      type: 'object',
      required: ['memberId', 'role', 'joinedAt'],
      properties: { memberId: { type: 'string' }, role: { enum: ['admin', 'member'] }, joinedAt: isoDate },
      additionalProperties: false,
    },
    example: { memberId: 'usr_4d5e6f', role: 'member', joinedAt: '2026-01-01T00:00:00.000Z' },
  },
  {
    type: 'member.removed',
    group: 'members',
    description: 'A person left the workspace or was removed from it.',
    schema: {
      $schema: SCHEMA,
      type: 'object',
      required: ['memberId', 'removedAt'],
      properties: { memberId: { type: 'string' }, removedAt: isoDate },
      additionalProperties: false,
    },
    example: { memberId: 'usr_4d5e6f', removedAt: '2026-01-01T00:00:00.000Z' },
  },
];

/** The catalog of {@link BERTH_EVENT_TYPES}. */
export function berthEventCatalog(): EventCatalog {
  return createEventCatalog(BERTH_EVENT_TYPES);
}
