/** The delivery primitives of outbound webhooks: signing, the SSRF policy, one delivery attempt, the retry schedule. */
export { signWebhook, generateWebhookSecret, WEBHOOK_SECRET_BYTES } from './sign-webhook';
export type { SignWebhookInput } from './sign-webhook';
export { classifyAddress } from './classify-address';
export type { AddressClass } from './classify-address';
export { createAddressPolicy } from './address-policy';
export type { AddressPolicy, AddressPolicyOptions, AddressVerdict } from './address-policy';
export { DEFAULT_ALLOWED_PORTS } from './port-ranges';
export { systemResolveHost } from './resolve-host';
export type { ResolveHost } from './resolve-host';
export { deliverWebhook } from './deliver-webhook';
export { DELIVERY_USER_AGENT, DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES } from './delivery-types';
export type { DeliveryAttempt, DeliveryOptions, DeliveryOutcome, DeliveryRequest } from './delivery-types';
export { SVIX_RETRY_SCHEDULE_MS, DEFAULT_RETRY_JITTER, nextRetryDelayMs } from './retry-schedule';
export type { NextRetryDelayOptions } from './retry-schedule';
export { parseRetryAfter } from './retry-after';
