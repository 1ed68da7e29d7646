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

/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`; id `X-GitHub-Delivery` (the same on a
 * redelivery), type `X-GitHub-Event` and the body's `action` (`pull_request.opened`; `push` has none). GitHub
 * signs no timestamp, so a captured delivery can be replayed: the inbox applies one delivery id once.
 */
export const githubPreset: WebhookPreset = {
  name: 'github',
  keptHeaders: [
    'x-github-event',
    'x-github-delivery',
    'x-github-hook-id',
    'x-github-hook-installation-target-id',
    'x-github-hook-installation-target-type',
    'x-hub-signature-256',
  ],
  minSecretLength: MIN_HMAC_SECRET_LENGTH,
  verify({ rawBody, headers, secrets, now }) {
    const signature = headerValue(headers, 'x-hub-signature-256');
    const delivery = headerValue(headers, 'x-github-delivery');
    const event = headerValue(headers, 'x-github-event');
    if (!signature || !delivery || !event)
      return fail(
        'missing_header',
        'missing header(s): x-hub-signature-256, x-github-delivery and x-github-event are required',
      );
    const offered = signature.startsWith('sha256=') ? fromHex(signature.slice(7), 32) : undefined;
    if (!offered) return fail('malformed', 'x-hub-signature-256 is not sha256=<64 hex>');
    const secretIndex = matchingSecret(secrets, (secret) => macEquals(hmac('sha256', secret, rawBody), offered));
    if (secretIndex === -1) return fail('bad_signature', 'no GitHub signature matched any configured secret');
    const text = decodeUtf8Strict(rawBody);
    const parsed = text === undefined ? undefined : parseJson(text);
    if (!parsed?.ok)
      return fail('malformed', 'verified body is not JSON (configure the webhook with content type application/json)');
    const action = stringField(parsed.value, 'action');
    return {
      ok: true,
      eventId: delivery,
      type: action ? `${event}.${action}` : event,
      timestamp: new Date(readClockMillis(now)),
      secretIndex,
      payload: parsed.value,
      storedBody: rawBody,
    };
  },
};
