/** Metadata keys of the webhook decorators. */
export const WEBHOOK_PROCESSOR_METADATA = 'berth:webhook-processor';
export const ON_WEBHOOK_METADATA = 'berth:on-webhook';
