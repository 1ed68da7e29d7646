import { decodeUtf8Strict, parseJson } from '../input';
import { fail } from '../result';
import { readClockMillis } from '../timing';
import {
  fromHex,
  headerValue,
  hmac,
  macEquals,
  matchingSecret,
  MIN_HMAC_SECRET_LENGTH,
  stringField,
  type WebhookPreset,
} from './preset';

/** Linear's documented replay window: the body's `webhookTimestamp` within a minute of now. */
const LINEAR_TOLERANCE_MS = 60_000;

/**
 * Linear: `Linear-Signature: <hex HMAC-SHA256 of the body>` with the webhook's signing secret, and the signed
 * body's `webhookTimestamp` (ms) within a minute; id `Linear-Delivery` (a UUID per delivery), type the body's
 * `type` and `action` (`Issue.create`).
 */
export const linearPreset: WebhookPreset = {
  name: 'linear',
  keptHeaders: ['linear-signature', 'linear-delivery', 'linear-event'],
  minSecretLength: MIN_HMAC_SECRET_LENGTH,
  verify({ rawBody, headers, secrets, now }) {
    const signature = headerValue(headers, 'linear-signature');
    const delivery = headerValue(headers, 'linear-delivery');
    if (!signature || !delivery)
      return fail('missing_header', 'missing header(s): linear-signature and linear-delivery are required');
    const offered = fromHex(signature, 32);
    if (!offered) return fail('malformed', 'linear-signature is not 64 hex');
    const secretIndex = matchingSecret(secrets, (secret) => macEquals(hmac('sha256', secret, rawBody), offered));
    if (secretIndex === -1) return fail('bad_signature', 'no Linear signature matched any configured secret');
    const text = decodeUtf8Strict(rawBody);
    const parsed = text === undefined ? undefined : parseJson(text);
    if (!parsed?.ok) return fail('malformed', 'verified body is not JSON');
    const sentAt = Number(stringField(parsed.value, 'webhookTimestamp'));
    const nowMillis = readClockMillis(now);
    if (!Number.isFinite(sentAt)) return fail('malformed', 'verified body has no webhookTimestamp');
    if (Math.abs(nowMillis - sentAt) > LINEAR_TOLERANCE_MS)
      return fail(
        'timestamp_out_of_tolerance',
        `webhookTimestamp is ${Math.round((nowMillis - sentAt) / 1000)}s from now; tolerance is 60s`,
      );
    const entity = stringField(parsed.value, 'type');
    const action = stringField(parsed.value, 'action');
    if (!entity) return fail('malformed', 'verified body has no type');
    return {
      ok: true,
      eventId: delivery,
      type: action ? `${entity}.${action}` : entity,
      timestamp: new Date(sentAt),
      secretIndex,
      payload: parsed.value,
      storedBody: rawBody,
    };
  },
};
