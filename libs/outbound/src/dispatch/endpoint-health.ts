import type { BerthLogger } from '@berth/logger';
import type { Clock } from '../clock';
import type { OutboundCollections } from '../collections';
import type { DisabledReason, EndpointDocument } from '../endpoints/endpoint-document';
import type { DispatcherMetrics } from './dispatcher-metrics';
import type { EndpointRegistry } from './endpoint-registry';

/** What the endpoint health bookkeeping uses. */
export interface EndpointHealthDependencies {
  collections: Pick<OutboundCollections, 'endpoints' | 'alerts'>;
  endpoints: EndpointRegistry;
  metrics: DispatcherMetrics;
  logger: BerthLogger;
  clock: Clock;
  /** How long an endpoint may fail without a single success before it is disabled (5 days). */
  disableAfterFailingMs: number;
  /** Called after this process disabled an endpoint (to announce it to the other replicas). */
  onDisabled?: (endpointId: string) => Promise<void> | void;
}

/**
 * Records a success: the endpoint's failure run, if any, ends. The local copy is cleared first, so the successes
 * arriving together after a failure run make one write; a failed write is only logged (the delivery itself
 * succeeded), and the next success after the next reload clears it.
 */
export async function recordEndpointSuccess(
  dependencies: EndpointHealthDependencies,
  endpoint: EndpointDocument,
): Promise<void> {
  if (dependencies.endpoints.get(endpoint._id)?.failingSince == null) return;
  dependencies.endpoints.patch(endpoint._id, { failingSince: null });
  await dependencies.collections.endpoints
    .updateOne({ _id: endpoint._id }, { $set: { failingSince: null } })
    .catch((error: unknown) => {
      dependencies.logger.warn(
        { err: error, endpointId: endpoint._id },
        'Could not clear the failure run of an endpoint',
      );
    });
}

/**
 * Records a failed attempt made at `at`. The first failure after a success starts the run (`failingSince`); a
 * failure when the run has lasted `disableAfterFailingMs` disables the endpoint with one alert. Returns true when
 * the endpoint is (now) disabled.
 */
export async function recordEndpointFailure(
  dependencies: EndpointHealthDependencies,
  endpointId: string,
  at: Date,
): Promise<boolean> {
  const endpoint = await dependencies.collections.endpoints.findOne({ _id: endpointId });
  if (!endpoint) return true;
  if (endpoint.disabledAt !== null) return true;
  if (endpoint.failingSince === null) {
    await dependencies.collections.endpoints.updateOne(
      { _id: endpointId, failingSince: null },
      { $set: { failingSince: at } },
    );
    dependencies.endpoints.patch(endpointId, { failingSince: at });
    return false;
  }
  dependencies.endpoints.patch(endpointId, { failingSince: endpoint.failingSince });
  if (at.getTime() - endpoint.failingSince.getTime() < dependencies.disableAfterFailingMs) return false;
  await autoDisableEndpoint(dependencies, endpoint, endpoint.failingSince);
  return true;
}

/** How long after an alert an attempt that lost the alert race disables the endpoint itself (the winner died). */
const ALERT_WINNER_GRACE_MS = 30_000;

/**
 * Disables an endpoint that has failed since `failingSince`, raising the alert exactly once however many attempts
 * and replicas get here at the same moment: the alert is a document whose `_id` names this failure run, and only
 * the insert that creates it logs the error line and counts `webhook_outbound_auto_disable_alerts_total` (a unique
 * insert is atomic on FerretDB and MongoDB alike, unlike `findOneAndUpdate`).
 *
 * Only the attempt that raised the alert writes the endpoint row (disabled, reason, `autoDisableAlertedAt`) in one
 * update: a second writer racing it could leave the row disabled without `autoDisableAlertedAt` (its update matching
 * first), or, on FerretDB 1.24 where an update writes back the whole document it read, undo part of the winner's.
 * The others stop delivering at once in this process and leave the row to the winner, unless the alert is older
 * than {@link ALERT_WINNER_GRACE_MS}: then the winner died before writing, and they disable it themselves.
 */
async function autoDisableEndpoint(
  dependencies: EndpointHealthDependencies,
  endpoint: EndpointDocument,
  failingSince: Date,
): Promise<void> {
  const now = dependencies.clock();
  const days = ((now.getTime() - failingSince.getTime()) / 86_400_000).toFixed(1);
  const message = `Endpoint ${endpoint._id} (${endpoint.url}) of workspace ${endpoint.workspaceId} has failed every attempt for ${days} days since ${failingSince.toISOString()}: disabled`;
  const alertId = `endpoint-auto-disabled:${endpoint._id}:${failingSince.getTime()}`;
  try {
    await dependencies.collections.alerts.insertOne({
      _id: alertId,
      kind: 'endpoint-auto-disabled',
      endpointId: endpoint._id,
      workspaceId: endpoint.workspaceId,
      message,
      raisedAt: now,
    });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    const alert = await dependencies.collections.alerts.findOne({ _id: alertId });
    if (alert && now.getTime() - alert.raisedAt.getTime() >= ALERT_WINNER_GRACE_MS) {
      await disableEndpoint(dependencies, endpoint._id, 'failing', { autoDisableAlertedAt: alert.raisedAt });
    } else {
      dependencies.endpoints.patch(endpoint._id, { disabledAt: now, disabledReason: 'failing' });
    }
    return;
  }
  await disableEndpoint(dependencies, endpoint._id, 'failing', { autoDisableAlertedAt: now });
  dependencies.metrics.autoDisableAlerts.inc();
  dependencies.logger.error(
    {
      endpointId: endpoint._id,
      workspaceId: endpoint.workspaceId,
      url: endpoint.url,
      failingSince: failingSince.toISOString(),
      alert: 'endpoint-auto-disabled',
    },
    message,
  );
}

/** Disables an endpoint for `reason` unless it is disabled already; counts it and tells the other replicas. */
export async function disableEndpoint(
  dependencies: EndpointHealthDependencies,
  endpointId: string,
  reason: Exclude<DisabledReason, 'manual'>,
  extra: Partial<EndpointDocument> = {},
): Promise<void> {
  const now = dependencies.clock();
  const result = await dependencies.collections.endpoints.updateOne(
    { _id: endpointId, disabledAt: null },
    { $set: { disabledAt: now, disabledReason: reason, updatedAt: now, ...extra } },
  );
  dependencies.endpoints.patch(endpointId, { disabledAt: now, disabledReason: reason, ...extra });
  if (result.modifiedCount > 0) {
    dependencies.metrics.endpointsDisabled.labels(reason).inc();
    if (reason === 'gone')
      dependencies.logger.warn({ endpointId }, `Endpoint ${endpointId} answered 410 Gone: disabled`);
    await dependencies.onDisabled?.(endpointId);
  }
}
