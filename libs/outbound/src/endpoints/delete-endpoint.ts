import type { EndpointOperationDependencies } from './endpoint-operations';
import { getEndpoint } from './get-endpoint';

/**
 * Deletes an endpoint and tells the dispatchers, which then stop its lane, delete its consumer and drop the
 * deliveries still queued for it (see `EndpointLanes`). Its delivery log stays until retention removes it.
 * @throws EndpointNotFoundError
 */
export async function deleteEndpoint(dependencies: EndpointOperationDependencies, endpointId: string): Promise<void> {
  await getEndpoint(dependencies, endpointId);
  await dependencies.collections.endpoints.deleteOne({ _id: endpointId });
  await dependencies.onChanged?.(endpointId);
}
