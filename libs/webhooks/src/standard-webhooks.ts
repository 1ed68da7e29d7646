import { Webhook } from 'standardwebhooks';
import { verifyV1Scheme, type V1Scheme, type V1SchemeVerifyInput } from './v1-scheme';
import type { VerificationResult } from './result';

/** Input for {@link verifyStandardWebhook}; `secrets` are `whsec_<base64>` or bare base64 keys. */
export type StandardWebhookVerifyInput = V1SchemeVerifyInput;

const STANDARD_WEBHOOKS: V1Scheme = Object.freeze({
  name: 'Standard Webhooks',
  idHeader: 'webhook-id',
  timestampHeader: 'webhook-timestamp',
  signatureHeader: 'webhook-signature',
  createSigner: (secret: string) => new Webhook(secret),
});

/**
 * Verifies a delivery signed per the Standard Webhooks spec: headers `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`. The signature is computed by the
 * `standardwebhooks` library's `Webhook.sign`; the timestamp is checked against the injected
 * clock, in both directions. On success `eventId` is the `webhook-id` header.
 *
 * @throws only for programmer errors (no secrets, undecodable secret, invalid tolerance or clock).
 */
export function verifyStandardWebhook(input: StandardWebhookVerifyInput): VerificationResult {
  return verifyV1Scheme(STANDARD_WEBHOOKS, input);
}
