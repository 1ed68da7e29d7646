import { systemClock } from '@berth/contract';
import { generateWebhookSecret } from '../delivery';
import { assertWorkspaceId, newEndpointId } from '../names';
import { toEndpointView, type EndpointDocument, type EndpointView } from './endpoint-document';
import {
  assertEndpointUrl,
  assertEventTypes,
  assertRateLimit,
  InvalidEndpointError,
  type EndpointOperationDependencies,
} from './endpoint-operations';

/** A new endpoint. */
export interface CreateEndpointInput {
  workspaceId: string;
  url: string;
  description?: string;
  /** Event types to deliver; empty or absent: every type. */
  eventTypes?: string[];
  rateLimitPerSecond?: number | null;
  ordered?: boolean;
  /** A `whsec_…` secret to use; a new one is generated when absent. */
  secret?: string;
}

/** The created endpoint, with its secret (shown once, as Svix does). */
export interface CreatedEndpoint {
  endpoint: EndpointView;
  secret: string;
}

/** Creates an enabled endpoint with one signing secret and tells the dispatchers. */
export async function createEndpoint(
  dependencies: EndpointOperationDependencies,
  input: CreateEndpointInput,
): Promise<CreatedEndpoint> {
  try {
    assertWorkspaceId(input.workspaceId);
  } catch (error) {
    throw new InvalidEndpointError((error as Error).message);
  }
  assertEndpointUrl(input.url);
  assertEventTypes(input.eventTypes ?? []);
  assertRateLimit(input.rateLimitPerSecond ?? null);
  if (input.secret !== undefined && !/^whsec_[A-Za-z0-9+/=]{24,}$/.test(input.secret))
    throw new InvalidEndpointError('secret must be whsec_ and base64 of at least 18 bytes');
  const now = (dependencies.clock ?? systemClock).now();
  const secret = input.secret ?? generateWebhookSecret();
  const document: EndpointDocument = {
    _id: newEndpointId(),
    workspaceId: input.workspaceId,
    url: input.url,
    description: input.description ?? '',
    eventTypes: [...new Set(input.eventTypes ?? [])],
    secrets: [{ secret, createdAt: now, expiresAt: null }],
    rateLimitPerSecond: input.rateLimitPerSecond ?? null,
    ordered: input.ordered ?? false,
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
    autoDisableAlertedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await dependencies.collections.endpoints.insertOne(document);
  await dependencies.onChanged?.(document._id);
  return { endpoint: toEndpointView(document, now), secret };
}
