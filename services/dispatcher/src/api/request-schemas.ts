import { z } from 'zod';

const eventTypes = z.array(z.string().min(1).max(128)).max(500);
const rateLimit = z.number().positive().max(10_000).nullable();

/** `POST /v1/endpoints` */
export const createEndpointBody = z
  .object({
    workspaceId: z.string().min(1),
    url: z.string().min(1),
    description: z.string().max(1000).optional(),
    eventTypes: eventTypes.optional(),
    rateLimitPerSecond: rateLimit.optional(),
    ordered: z.boolean().optional(),
    secret: z.string().optional(),
  })
  .strict();

/** `PATCH /v1/endpoints/:id` */
export const updateEndpointBody = z
  .object({
    url: z.string().min(1).optional(),
    description: z.string().max(1000).optional(),
    eventTypes: eventTypes.optional(),
    rateLimitPerSecond: rateLimit.optional(),
    ordered: z.boolean().optional(),
  })
  .strict();

/** `POST /v1/endpoints/:id/rotate-secret` */
export const rotateSecretBody = z
  .object({
    /** How long the previous secret keeps signing; default 24 h. */
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3600)
      .optional(),
    secret: z.string().optional(),
  })
  .strict();

/** `POST /v1/endpoints/:id/recover` */
export const recoverBody = z.object({ since: z.iso.datetime({ offset: true }) }).strict();

/** `GET /v1/deliveries` */
export const listDeliveriesQuery = z.object({
  endpointId: z.string().optional(),
  workspaceId: z.string().optional(),
  eventId: z.string().optional(),
  status: z.enum(['pending', 'delivered', 'failed', 'skipped']).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
});
