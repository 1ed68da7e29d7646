import { Webhook } from 'svix';
import { verifyV1Scheme, type V1Scheme, type V1SchemeVerifyInput } from './v1-scheme';
import type { VerificationResult } from './result';

/** Input for {@link verifySvixSignature}; `secrets` are Svix endpoint secrets (`whsec_...`). */
export type SvixVerifyInput = V1SchemeVerifyInput;

const SVIX: V1Scheme = Object.freeze({
  name: 'Svix',
  idHeader: 'svix-id',
  timestampHeader: 'svix-timestamp',
  signatureHeader: 'svix-signature',
  createSigner: (secret: string) => new Webhook(secret),
});

/**
 * Verifies a Svix-signed webhook (Clerk and other Svix senders): headers `svix-id`,
 * `svix-timestamp`, `svix-signature`. The signature is computed by the `svix` library's
 * `Webhook.sign`; the timestamp is checked against the injected clock, in both directions.
 * On success `eventId` is the `svix-id` header (stable across Svix retries).
 * Only the `svix-*` header names are read; unbranded `webhook-*` deliveries go to
 * `verifyStandardWebhook`.
 *
 * @throws only for programmer errors (no secrets, undecodable secret, invalid tolerance or clock).
 */
export function verifySvixSignature(input: SvixVerifyInput): VerificationResult {
  return verifyV1Scheme(SVIX, input);
}
