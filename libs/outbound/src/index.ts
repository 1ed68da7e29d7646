/** Outbound webhooks. Exports are added per module. */
export {};
export * from './delivery';
export * from './outbox';
export * from './names';
export { outboundEventsStream, outboundDeliveriesStream, ensureOutboundStreams } from './streams';
export { outboundCollections, ensureOutboundIndexes } from './collections';
export type { OutboundCollections, AlertDocument } from './collections';
export { sendEvent } from './send/send-event';
export type { SendEventDependencies, SendOptions, SentEvent } from './send/send-event';
export { createOutboundSender } from './send/create-sender';
export type { SendOutboundEvent } from './send/create-sender';
export type { OutboundEvent, EventDocument } from './send/event-document';
export { activeSecrets, subscribesTo, toEndpointView } from './endpoints/endpoint-document';
export type { EndpointDocument, EndpointSecret, EndpointView, DisabledReason } from './endpoints/endpoint-document';
export { EndpointNotFoundError, InvalidEndpointError, assertEndpointUrl } from './endpoints/endpoint-operations';
export type { EndpointOperationDependencies } from './endpoints/endpoint-operations';
export { createEndpoint } from './endpoints/create-endpoint';
export type { CreateEndpointInput, CreatedEndpoint } from './endpoints/create-endpoint';
export { getEndpoint } from './endpoints/get-endpoint';
export { listEndpoints } from './endpoints/list-endpoints';
export { updateEndpoint } from './endpoints/update-endpoint';
export type { EndpointChanges } from './endpoints/update-endpoint';
export { setEndpointEnabled } from './endpoints/set-endpoint-enabled';
export { rotateEndpointSecret, DEFAULT_ROTATION_OVERLAP_MS } from './endpoints/rotate-endpoint-secret';
export type { RotatedSecret } from './endpoints/rotate-endpoint-secret';
export { announceEndpointChange } from './endpoints/announce-endpoint-change';
export { deleteEndpoint } from './endpoints/delete-endpoint';
export { toDeliveryView, attemptEntryId } from './deliveries/delivery-document';
export type { DeliveryDocument, DeliveryStatus, DeliveryView, DeliveryLogEntry } from './deliveries/delivery-document';
export { loadDeliveryViews, getDeliveryView } from './deliveries/load-delivery-views';
export type { DeliveryMessage } from './deliveries/delivery-message';
export { listDeliveries } from './deliveries/list-deliveries';
export type { DeliveryFilter } from './deliveries/list-deliveries';
export { replayDelivery, ReplayRefusedError } from './deliveries/replay-delivery';
export type { ReplayDependencies, ReplayedDelivery } from './deliveries/replay-delivery';
export { recoverEndpoint } from './deliveries/recover-endpoint';
export { deleteOldDeliveries } from './deliveries/delete-old-deliveries';
export type { RetentionResult } from './deliveries/delete-old-deliveries';
export { startDispatcher, DEFAULT_DISABLE_AFTER_FAILING_MS } from './dispatch/start-dispatcher';
export type { Dispatcher, DispatcherOptions } from './dispatch/start-dispatcher';
export { createDispatcherMetrics } from './dispatch/dispatcher-metrics';
export type { DispatcherMetrics } from './dispatch/dispatcher-metrics';
export { createRateLimiter } from './dispatch/rate-limiter';
export type { RateLimiter } from './dispatch/rate-limiter';
export {
  createSharedRateLimiter,
  endpointRateWindow,
  openEndpointRateWindows,
  OUTBOUND_RATES_BUCKET,
} from './dispatch/shared-rate-limiter';
export type {
  ClosableRateLimiter,
  EndpointRateWindowOptions,
  SharedRateLimiterOptions,
  TakeSharedStart,
} from './dispatch/shared-rate-limiter';
export * from './catalog';
