import { systemClock } from '@berth/contract';
import { toEndpointView, type EndpointDocument, type EndpointView } from './endpoint-document';
import {
  assertEndpointUrl,
  assertEventTypes,
  assertRateLimit,
  EndpointNotFoundError,
  type EndpointOperationDependencies,
} from './endpoint-operations';

/** Fields of an endpoint that can change; absent fields stay as they are. */
export interface EndpointChanges {
  url?: string;
  description?: string;
  /** Replaces the subscribed types; empty: every type. */
  eventTypes?: string[];
  rateLimitPerSecond?: number | null;
  ordered?: boolean;
}

/**
 * Changes an endpoint's settings in one `findOneAndUpdate`, which also answers the endpoint as changed, and tells
 * the dispatchers. @throws EndpointNotFoundError, InvalidEndpointError
 */
export async function updateEndpoint(
  dependencies: EndpointOperationDependencies,
  endpointId: string,
  changes: EndpointChanges,
): Promise<EndpointView> {
  if (changes.url !== undefined) assertEndpointUrl(changes.url);
  if (changes.eventTypes !== undefined) assertEventTypes(changes.eventTypes);
  if (changes.rateLimitPerSecond !== undefined) assertRateLimit(changes.rateLimitPerSecond);
  const now = (dependencies.clock ?? systemClock).now();
  const set: Partial<EndpointDocument> = { updatedAt: now };
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.eventTypes !== undefined) set.eventTypes = [...new Set(changes.eventTypes)];
  if (changes.rateLimitPerSecond !== undefined) set.rateLimitPerSecond = changes.rateLimitPerSecond;
  if (changes.ordered !== undefined) set.ordered = changes.ordered;
  const updated = await dependencies.collections.endpoints.findOneAndUpdate(
    { _id: endpointId },
    { $set: set },
    { returnDocument: 'after' },
  );
  if (!updated) throw new EndpointNotFoundError(endpointId);
  await dependencies.onChanged?.(endpointId);
  return toEndpointView(updated, now);
}
