import type { EndpointDocument } from './endpoint-document';
import type { EndpointOperationDependencies } from './endpoint-operations';

/** The endpoints of one workspace, or every endpoint, oldest first. */
export async function listEndpoints(
  dependencies: Pick<EndpointOperationDependencies, 'collections'>,
  filter: { workspaceId?: string } = {},
): Promise<EndpointDocument[]> {
  const query = filter.workspaceId === undefined ? {} : { workspaceId: filter.workspaceId };
  const endpoints = await dependencies.collections.endpoints.find(query).toArray();
  return endpoints.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a._id.localeCompare(b._id));
}
