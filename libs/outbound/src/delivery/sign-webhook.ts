import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** What {@link signWebhook} signs: the Standard Webhooks message id, its timestamp and the exact body text. */
export interface SignWebhookInput {
  /** The `webhook-id` header: the same for every attempt of one message, so receivers can deduplicate. */
  messageId: string;
  /** The `webhook-timestamp` (unix seconds of this date); a fresh one per attempt keeps receivers' tolerance check happy. */
  timestamp: Date;
  /** The exact JSON text sent as the body. */
  payload: string;
  /** Every active secret of the endpoint (`whsec_<base64>`); during a rotation both old and new sign. */
  secrets: readonly string[];
}

/**
 * The `webhook-signature` header value of a Standard Webhooks delivery: one `v1,<base64>` per secret, separated by
 * spaces, so a receiver still holding the previous secret verifies as well as one that already has the new one.
 * The signatures come from the `standardwebhooks` library's `Webhook.sign`, never from hand-rolled HMAC, so the
 * sender and every receiver built on that library agree byte for byte.
 *
 * @throws RangeError when no secret is given; Error from the library when a secret is not valid base64 key material.
 */
export function signWebhook(input: SignWebhookInput): string {
  if (input.secrets.length === 0) throw new RangeError('signWebhook needs at least one secret');
  return input.secrets
    .map((secret) => new Webhook(secret).sign(input.messageId, input.timestamp, input.payload))
    .join(' ');
}

/** Bytes of key material in a generated secret: 32, above the 24 Standard Webhooks asks for at least. */
export const WEBHOOK_SECRET_BYTES = 32;

/**
 * A new endpoint signing secret, `whsec_` followed by {@link WEBHOOK_SECRET_BYTES} random bytes in base64: the
 * format Svix and the `standardwebhooks` libraries of every language accept as is.
 */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(WEBHOOK_SECRET_BYTES).toString('base64')}`;
}
