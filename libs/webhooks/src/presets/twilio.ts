import { decodeUtf8Strict } from '../input';
import { fail } from '../result';
import { readClockMillis } from '../timing';
import { formObject, formParams } from './form-body';
import {
  fromBase64,
  headerValue,
  hmac,
  macEquals,
  matchingSecret,
  MIN_HMAC_SECRET_LENGTH,
  signedContentId,
  type WebhookPreset,
} from './preset';

/** What Twilio signs: the URL, then every POST parameter's name and value, sorted by name. */
export function twilioSignedContent(url: string, params: readonly [string, string][]): string {
  return (
    url +
    [...params]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => name + value)
      .join('')
  );
}

/**
 * Twilio: `X-Twilio-Signature: <base64 HMAC-SHA1 of the URL followed by the sorted POST parameters>` with the
 * account's auth token; the URL is the endpoint's public URL, configured (`url`), because behind a proxy the
 * gateway cannot know the one Twilio used. Status callbacks carry no event id: the id is
 * `I-Twilio-Idempotency-Token` when Twilio sends it (the same on its retries), else a hash of the signed content;
 * type `message.<MessageStatus>`, `call.<CallStatus>`, or `request`. The stored body is the parameters as JSON.
 */
export const twilioPreset: WebhookPreset = {
  name: 'twilio',
  keptHeaders: ['x-twilio-signature', 'i-twilio-idempotency-token'],
  needsUrl: true,
  minSecretLength: MIN_HMAC_SECRET_LENGTH,
  verify({ rawBody, headers, secrets, now, url }) {
    if (!url) throw new TypeError("twilio: the endpoint's public url is required");
    const signature = headerValue(headers, 'x-twilio-signature');
    if (!signature) return fail('missing_header', 'missing header(s): x-twilio-signature');
    const offered = fromBase64(signature, 20);
    if (!offered) return fail('malformed', 'x-twilio-signature is not a base64 SHA-1 HMAC');
    const text = decodeUtf8Strict(rawBody);
    if (text === undefined) return fail('malformed', 'body is not valid UTF-8');
    const params = formParams(text);
    const signed = twilioSignedContent(url, params);
    const secretIndex = matchingSecret(secrets, (secret) => macEquals(hmac('sha1', secret, signed), offered));
    if (secretIndex === -1) return fail('bad_signature', 'no Twilio signature matched any configured auth token');
    const fields = formObject(params);
    const type = fields.MessageStatus
      ? `message.${fields.MessageStatus}`
      : fields.CallStatus
        ? `call.${fields.CallStatus}`
        : 'request';
    const eventId = headerValue(headers, 'i-twilio-idempotency-token') ?? signedContentId(signed);
    return {
      ok: true,
      eventId,
      type,
      timestamp: new Date(readClockMillis(now)),
      secretIndex,
      payload: fields,
      storedBody: Buffer.from(JSON.stringify(fields)),
    };
  },
};
