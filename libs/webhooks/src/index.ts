/**
 * @berth/webhooks — signature verification for inbound webhooks (Stripe, Svix/Clerk,
 * Standard Webhooks, generic HMAC-SHA256). Every verifier is a pure function over the raw
 * body, headers, secrets and an injectable clock, returning a {@link VerificationResult}.
 */
export type { VerificationResult, VerificationSuccess, VerificationFailure, VerificationFailureReason } from './result';
export { DEFAULT_TOLERANCE_SECONDS } from './timing';
export { MAX_JSON_NESTING_DEPTH } from './json-depth';
export type { HeaderBag } from './input';
export type { StripeVerifyInput } from './stripe';
export { verifyStripeSignature } from './stripe';
export type { SvixVerifyInput } from './svix';
export { verifySvixSignature } from './svix';
export type { StandardWebhookVerifyInput } from './standard-webhooks';
export { verifyStandardWebhook } from './standard-webhooks';
export type { HmacSha256VerifyInput, HmacSha256SignInput } from './hmac-sha256';
export {
  verifyHmacSha256,
  signHmacSha256,
  DEFAULT_HMAC_SIGNATURE_HEADER,
  DEFAULT_HMAC_TIMESTAMP_HEADER,
} from './hmac-sha256';
export {
  STRIPE_HANDLED_EVENT_TYPES,
  CLERK_HANDLED_EVENT_TYPES,
  type StripeHandledEventType,
  type ClerkHandledEventType,
} from './handled-events';
export { WEBHOOK_PRESETS, webhookPreset } from './presets/catalog';
export { MIN_HMAC_SECRET_LENGTH, signedContentId } from './presets/preset';
export type {
  WebhookPreset,
  PresetVerifyInput,
  PresetVerificationResult,
  PresetVerificationSuccess,
} from './presets/preset';
export {
  keptProviderHeaders,
  STRIPE_KEPT_HEADERS,
  SVIX_KEPT_HEADERS,
  STANDARD_WEBHOOKS_KEPT_HEADERS,
} from './provider-headers';
export { twilioSignedContent } from './presets/schemes';
