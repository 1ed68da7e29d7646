import { decodeUtf8Strict, parseJson } from '../input';
import { fail } from '../result';
import { readClockMillis } from '../timing';
import {
  fromBase64,
  headerValue,
  hmac,
  macEquals,
  matchingSecret,
  MIN_HMAC_SECRET_LENGTH,
  type WebhookPreset,
} from './preset';

/**
 * Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>` with the app's client secret; id
 * `X-Shopify-Webhook-Id` (the same on every retry of a delivery), type `X-Shopify-Topic` (`orders/create`). No
 * signed timestamp: the inbox applies one webhook id once.
 */
export const shopifyPreset: WebhookPreset = {
  name: 'shopify',
  keptHeaders: [
    'x-shopify-topic',
    'x-shopify-hmac-sha256',
    'x-shopify-shop-domain',
    'x-shopify-webhook-id',
    'x-shopify-api-version',
    'x-shopify-triggered-at',
    'x-shopify-event-id',
  ],
  minSecretLength: MIN_HMAC_SECRET_LENGTH,
  verify({ rawBody, headers, secrets, now }) {
    const signature = headerValue(headers, 'x-shopify-hmac-sha256');
    const id = headerValue(headers, 'x-shopify-webhook-id');
    const topic = headerValue(headers, 'x-shopify-topic');
    if (!signature || !id || !topic)
      return fail(
        'missing_header',
        'missing header(s): x-shopify-hmac-sha256, x-shopify-webhook-id and x-shopify-topic are required',
      );
    const offered = fromBase64(signature, 32);
    if (!offered) return fail('malformed', 'x-shopify-hmac-sha256 is not a base64 SHA-256 HMAC');
    const secretIndex = matchingSecret(secrets, (secret) => macEquals(hmac('sha256', secret, rawBody), offered));
    if (secretIndex === -1) return fail('bad_signature', 'no Shopify signature matched any configured secret');
    const text = decodeUtf8Strict(rawBody);
    const parsed = text === undefined ? undefined : parseJson(text);
    if (!parsed?.ok) return fail('malformed', 'verified body is not JSON');
    return {
      ok: true,
      eventId: id,
      type: topic,
      timestamp: new Date(readClockMillis(now)),
      secretIndex,
      payload: parsed.value,
      storedBody: rawBody,
    };
  },
};
