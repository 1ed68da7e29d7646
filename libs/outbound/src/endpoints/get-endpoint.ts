import type { EndpointDocument } from './endpoint-document';
import { EndpointNotFoundError, type EndpointOperationDependencies } from './endpoint-operations';

/** Reads one endpoint by id. @throws EndpointNotFoundError */
export async function getEndpoint(
  dependencies: Pick<EndpointOperationDependencies, 'collections'>,
  endpointId: string,
): Promise<EndpointDocument> {
  const endpoint = await dependencies.collections.endpoints.findOne({ _id: endpointId });
  if (!endpoint) throw new EndpointNotFoundError(endpointId);
  return endpoint;
}
