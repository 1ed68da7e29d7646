import { decodeUtf8Strict, parseJson } from '../input';
import { fail } from '../result';
import { isWithinTolerance, parseUnixSeconds, readClockMillis, toleranceMessage } from '../timing';
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

/** Paddle's SDK refuses a signature older than 5 seconds; the gateway allows the usual 5 minutes of clock skew. */
const PADDLE_TOLERANCE_SECONDS = 300;

/**
 * Paddle Billing: `Paddle-Signature: ts=<unix seconds>;h1=<hex HMAC-SHA256 of "<ts>:<body>">` with the
 * notification destination's secret key (several `h1` during a rotation); id `event_id`, type `event_type`
 * (`subscription.updated`), both in the body.
 */
export const paddlePreset: WebhookPreset = {
  name: 'paddle',
  keptHeaders: ['paddle-signature'],
  minSecretLength: MIN_HMAC_SECRET_LENGTH,
  verify({ rawBody, headers, secrets, now }) {
    const header = headerValue(headers, 'paddle-signature');
    if (!header) return fail('missing_header', 'missing header(s): paddle-signature');
    const parts = header.split(';').map((part) => part.split('=', 2) as [string, string?]);
    const timestampText = parts.find(([key]) => key === 'ts')?.[1];
    const offered = parts.filter(([key]) => key === 'h1').map(([, value]) => fromHex(value, 32));
    const timestamp = timestampText === undefined ? undefined : parseUnixSeconds(timestampText);
    if (timestamp === undefined || offered.length === 0 || offered.some((value) => value === undefined))
      return fail('malformed', 'paddle-signature is not ts=<seconds>;h1=<64 hex>');
    const nowMillis = readClockMillis(now);
    if (!isWithinTolerance(timestamp, nowMillis, PADDLE_TOLERANCE_SECONDS))
      return fail('timestamp_out_of_tolerance', toleranceMessage(timestamp, nowMillis, PADDLE_TOLERANCE_SECONDS));
    const secretIndex = matchingSecret(secrets, (secret) => {
      const expected = hmac('sha256', secret, `${timestampText}:`, rawBody);
      return offered.some((value) => macEquals(expected, value));
    });
    if (secretIndex === -1) return fail('bad_signature', 'no Paddle signature matched any configured secret');
    const text = decodeUtf8Strict(rawBody);
    const parsed = text === undefined ? undefined : parseJson(text);
    if (!parsed?.ok) return fail('malformed', 'verified body is not JSON');
    const eventId = stringField(parsed.value, 'event_id');
    const type = stringField(parsed.value, 'event_type');
    if (!eventId || !type) return fail('malformed', 'verified body has no event_id or event_type');
    return {
      ok: true,
      eventId,
      type,
      timestamp: new Date(timestamp * 1000),
      secretIndex,
      payload: parsed.value,
      storedBody: rawBody,
    };
  },
};
