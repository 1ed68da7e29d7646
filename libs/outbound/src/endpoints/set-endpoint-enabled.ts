import { systemClock } from '@berth/contract';
import { toEndpointView, type EndpointView } from './endpoint-document';
import { EndpointNotFoundError, type EndpointOperationDependencies } from './endpoint-operations';

/**
 * Disables an endpoint (an operator's or customer's decision: reason `manual`), or enables it again. Enabling
 * clears the failure run and the auto-disable alert, so a later 5-day failure alerts again. Deliveries that came due
 * while it was disabled are `skipped`; `recoverEndpoint` sends them. One `findOneAndUpdate`, answering the endpoint as
 * changed.
 * @throws EndpointNotFoundError
 */
export async function setEndpointEnabled(
  dependencies: EndpointOperationDependencies,
  endpointId: string,
  enabled: boolean,
): Promise<EndpointView> {
  const now = (dependencies.clock ?? systemClock).now();
  const set = enabled
    ? { disabledAt: null, disabledReason: null, failingSince: null, autoDisableAlertedAt: null, updatedAt: now }
    : { disabledAt: now, disabledReason: 'manual' as const, updatedAt: now };
  const updated = await dependencies.collections.endpoints.findOneAndUpdate(
    { _id: endpointId },
    { $set: set },
    { returnDocument: 'after' },
  );
  if (!updated) throw new EndpointNotFoundError(endpointId);
  await dependencies.onChanged?.(endpointId);
  return toEndpointView(updated, now);
}
