// The webhook handler API: what a product team writes (decorators, the module) and how it is tested (the sync driver).
export { WebhookProcessor } from './decorators/webhook-processor.decorator';
export type { WebhookProcessorOptions } from './decorators/webhook-processor.decorator';
export { OnWebhook } from './decorators/on-webhook.decorator';
export { webhookProcessorOptionsOf, onWebhookMethodsOf } from './decorators/read-metadata';
export type { ReceivedWebhook } from './received-webhook';
export { WebhooksModule } from './webhooks.module';
export { WEBHOOKS_MODULE_OPTIONS, WEBHOOK_DRIVER } from './webhooks-module-options';
export type { WebhooksModuleOptions, WebhookConsumerSettings, WebhookDriverName } from './webhooks-module-options';
export { WebhookRegistry } from './discovery/webhook-registry';
export type { RegisteredWebhookHandler } from './discovery/webhook-registry';
export type { WebhookDriver } from './drivers/webhook-driver';
export { JetStreamWebhookDriver, WEBHOOKS_STREAM_NAME } from './drivers/jetstream-webhook-driver';
export { SyncWebhookDriver } from './drivers/sync-webhook-driver';
export type { WebhookDeliveryInput, InProcessWebhookPublisher } from './drivers/sync-webhook-driver';
export { handleWebhookMessage } from './drivers/handle-webhook-message';
export { consumerSettingsOf } from './drivers/consumer-settings';
export { defaultConsumerName, providerFilterSubject } from './names';
export { UnrecoverableError, RetryLaterError } from '@berth/messaging';
export { webhookWorkerApp } from './webhook-worker-app';
export type { WebhookWorkerApp } from './webhook-worker-app';
export { startWebhookConsumerService } from './webhook-consumer-service';
export type {
  WebhookConsumerAppParts,
  WebhookConsumerServiceConfig,
  WebhookConsumerServiceOptions,
} from './webhook-consumer-service';
export { webhookConsumerApp, defaultReplicaOwner } from './webhook-consumer-app';
export type { WebhookConsumerAppOptions, WebhookConsumerShape } from './webhook-consumer-app';
