import { toEndpointView, type EndpointView } from './endpoint-document';
import type { EndpointOperationDependencies } from './endpoint-operations';
import { getEndpoint } from './get-endpoint';

/**
 * Disables an endpoint (an operator's or customer's decision: reason `manual`), or enables it again. Enabling
 * clears the failure run and the auto-disable alert, so a later 5-day failure alerts again. Deliveries that came due
 * while it was disabled are `skipped`; `recoverEndpoint` sends them.
 * @throws EndpointNotFoundError
 */
export async function setEndpointEnabled(
  dependencies: EndpointOperationDependencies,
  endpointId: string,
  enabled: boolean,
): Promise<EndpointView> {
  const now = (dependencies.clock ?? (() => new Date()))();
  await getEndpoint(dependencies, endpointId);
  const set = enabled
    ? { disabledAt: null, disabledReason: null, failingSince: null, autoDisableAlertedAt: null, updatedAt: now }
    : { disabledAt: now, disabledReason: 'manual' as const, updatedAt: now };
  await dependencies.collections.endpoints.updateOne({ _id: endpointId }, { $set: set });
  await dependencies.onChanged?.(endpointId);
  return toEndpointView(await getEndpoint(dependencies, endpointId), now);
}
