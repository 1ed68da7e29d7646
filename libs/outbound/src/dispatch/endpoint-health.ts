import type { BerthLogger } from '@berth/logger';
import { isDuplicateKeyError } from '@berth/store';
import type { Filter } from 'mongodb';
import type { Clock } from '@berth/contract';
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
  return autoDisableEndpoint(dependencies, endpoint, endpoint.failingSince);
}

/**
 * Disables an endpoint that has failed since `failingSince`, raising the alert exactly once however many attempts
 * and replicas get here at the same moment: one conditional update, `{ _id, disabledAt: null, failingSince }`, sets
 * the endpoint disabled with its reason and `autoDisableAlertedAt`, and only the attempt whose update matched alerts
 * (the error line, `webhook_outbound_auto_disable_alerts_total`, and a record in `outboundAlerts` whose `_id` names
 * the failure run). The store evaluates the condition and the write as one, so exactly one attempt wins. The others
 * read the endpoint once: disabled (by the winner) means this delivery fails too; a run that a success ended in the
 * meantime means it is retried.
 */
async function autoDisableEndpoint(
  dependencies: EndpointHealthDependencies,
  endpoint: EndpointDocument,
  failingSince: Date,
): Promise<boolean> {
  const now = dependencies.clock.now();
  const won = await markDisabled(dependencies, { _id: endpoint._id, disabledAt: null, failingSince }, 'failing', {
    autoDisableAlertedAt: now,
  });
  if (!won) {
    const current = await dependencies.collections.endpoints.findOne({ _id: endpoint._id });
    if (current) dependencies.endpoints.patch(endpoint._id, current);
    return !current || current.disabledAt !== null;
  }
  const days = ((now.getTime() - failingSince.getTime()) / 86_400_000).toFixed(1);
  const message = `Endpoint ${endpoint._id} (${endpoint.url}) of workspace ${endpoint.workspaceId} has failed every attempt for ${days} days since ${failingSince.toISOString()}: disabled`;
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
  await dependencies.collections.alerts
    .insertOne({
      _id: `endpoint-auto-disabled:${endpoint._id}:${failingSince.getTime()}`,
      kind: 'endpoint-auto-disabled',
      endpointId: endpoint._id,
      workspaceId: endpoint.workspaceId,
      message,
      raisedAt: now,
    })
    .catch((error: unknown) => {
      // The endpoint is disabled and the alert logged and counted; only its record is missing.
      if (!isDuplicateKeyError(error))
        dependencies.logger.warn({ err: error, endpointId: endpoint._id }, 'Could not record the auto-disable alert');
    });
  await dependencies.onDisabled?.(endpoint._id);
  return true;
}

/** Disables an endpoint for `reason` unless it is disabled already; counts it and tells the other replicas. */
export async function disableEndpoint(
  dependencies: EndpointHealthDependencies,
  endpointId: string,
  reason: Exclude<DisabledReason, 'manual'>,
): Promise<void> {
  if (!(await markDisabled(dependencies, { _id: endpointId, disabledAt: null }, reason))) {
    // Disabled already (by another attempt or replica): this process stops delivering to it too.
    dependencies.endpoints.patch(endpointId, { disabledAt: dependencies.clock.now(), disabledReason: reason });
    return;
  }
  if (reason === 'gone') dependencies.logger.warn({ endpointId }, `Endpoint ${endpointId} answered 410 Gone: disabled`);
  await dependencies.onDisabled?.(endpointId);
}

/**
 * Disables the endpoint `filter` selects (its `_id`, still enabled, and any further guard) in one conditional
 * update, and stops delivering to it in this process. True when this call disabled it (then it is counted); false
 * when the filter matched nothing: disabled already, or the guard no longer holds.
 */
async function markDisabled(
  dependencies: EndpointHealthDependencies,
  filter: Filter<EndpointDocument> & { _id: string },
  reason: Exclude<DisabledReason, 'manual'>,
  extra: Partial<EndpointDocument> = {},
): Promise<boolean> {
  const now = dependencies.clock.now();
  const result = await dependencies.collections.endpoints.updateOne(filter, {
    $set: { disabledAt: now, disabledReason: reason, updatedAt: now, ...extra },
  });
  if (result.modifiedCount === 0) return false;
  dependencies.endpoints.patch(filter._id, { disabledAt: now, disabledReason: reason, ...extra });
  dependencies.metrics.endpointsDisabled.labels(reason).inc();
  return true;
}
