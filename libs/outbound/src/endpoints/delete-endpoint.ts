import { EndpointNotFoundError, type EndpointOperationDependencies } from './endpoint-operations';

/**
 * Deletes an endpoint and tells the dispatchers, which then stop its lane, delete its consumer and drop the
 * deliveries still queued for it (see `EndpointLanes`). Its delivery log stays until retention removes it.
 * @throws EndpointNotFoundError
 */
export async function deleteEndpoint(dependencies: EndpointOperationDependencies, endpointId: string): Promise<void> {
  const { deletedCount } = await dependencies.collections.endpoints.deleteOne({ _id: endpointId });
  if (deletedCount === 0) throw new EndpointNotFoundError(endpointId);
  await dependencies.onChanged?.(endpointId);
}
