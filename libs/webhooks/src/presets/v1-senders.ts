import { fail, type VerificationResult } from '../result';
import { verifyStandardWebhook } from '../standard-webhooks';
import { verifySvixSignature } from '../svix';
import { STANDARD_WEBHOOKS_KEPT_HEADERS, SVIX_KEPT_HEADERS } from '../provider-headers';
import { stringField, type PresetVerificationResult, type PresetVerifyInput, type WebhookPreset } from './preset';

/** Standard Webhooks keys are `whsec_` + base64 of at least 24 random bytes (the specification's minimum). */
const MIN_V1_SECRET_LENGTH = 'whsec_'.length + 32;

function withBodyType(result: VerificationResult, rawBody: Buffer): PresetVerificationResult {
  if (!result.ok) return result;
  const type = stringField(result.payload, 'type');
  return type ? { ...result, type, storedBody: rawBody } : fail('malformed', 'verified body has no type');
}

function v1Preset(
  name: string,
  keptHeaders: readonly string[],
  verify: (input: PresetVerifyInput) => VerificationResult,
): WebhookPreset {
  return {
    name,
    minSecretLength: MIN_V1_SECRET_LENGTH,
    keptHeaders,
    verify: (input) => withBodyType(verify(input), input.rawBody),
  };
}

/** Any Standard Webhooks sender: `webhook-id` (the id), `webhook-timestamp`, `webhook-signature`; type the body's `type`. */
export const standardWebhooksPreset = v1Preset('standard-webhooks', STANDARD_WEBHOOKS_KEPT_HEADERS, (input) =>
  verifyStandardWebhook(input),
);
/** Any Svix sender: `svix-id` (the id), `svix-timestamp`, `svix-signature`; type the body's `type`. */
export const svixPreset = v1Preset('svix', SVIX_KEPT_HEADERS, (input) => verifySvixSignature(input));
/** Resend signs with Svix: `svix-id`, `svix-timestamp`, `svix-signature`; type the body's `type` (`email.delivered`). */
export const resendPreset = v1Preset('resend', SVIX_KEPT_HEADERS, (input) => verifySvixSignature(input));
