import { decodeUtf8Strict, parseJson } from '../input';
import { fail } from '../result';
import {
  isWithinTolerance,
  parseUnixSeconds,
  readClockMillis,
  toleranceMessage,
  DEFAULT_TOLERANCE_SECONDS,
} from '../timing';
import { formObject, formParams } from './form-body';
import {
  fromHex,
  headerValue,
  hmac,
  macEquals,
  matchingSecret,
  MIN_HMAC_SECRET_LENGTH,
  signedContentId,
  stringField,
  type PresetVerificationResult,
  type WebhookPreset,
} from './preset';

/**
 * Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<X-Slack-Request-Timestamp>:<body>">` with the app's
 * signing secret, the timestamp within 5 minutes. Events API (JSON): id `event_id` (the same on Slack's retries),
 * type `event.type` (`app_mention`), or the body's `type` for other callbacks. Interactivity and slash commands
 * (form bodies) carry no id: the id is a hash of the signed content (timestamp and body), and the stored body is
 * the form's fields as JSON (`payload` parsed).
 */
export const slackPreset: WebhookPreset = {
  name: 'slack',
  keptHeaders: ['x-slack-signature', 'x-slack-request-timestamp', 'x-slack-retry-num', 'x-slack-retry-reason'],
  minSecretLength: MIN_HMAC_SECRET_LENGTH,
  verify({ rawBody, headers, secrets, now }): PresetVerificationResult {
    const signature = headerValue(headers, 'x-slack-signature');
    const timestampText = headerValue(headers, 'x-slack-request-timestamp');
    if (!signature || !timestampText)
      return fail('missing_header', 'missing header(s): x-slack-signature and x-slack-request-timestamp are required');
    const timestamp = parseUnixSeconds(timestampText);
    const offered = signature.startsWith('v0=') ? fromHex(signature.slice(3), 32) : undefined;
    if (timestamp === undefined || !offered)
      return fail('malformed', 'x-slack-signature is not v0=<64 hex>, or the timestamp is not unix seconds');
    const nowMillis = readClockMillis(now);
    if (!isWithinTolerance(timestamp, nowMillis, DEFAULT_TOLERANCE_SECONDS))
      return fail('timestamp_out_of_tolerance', toleranceMessage(timestamp, nowMillis, DEFAULT_TOLERANCE_SECONDS));
    const secretIndex = matchingSecret(secrets, (secret) =>
      macEquals(hmac('sha256', secret, `v0:${timestampText}:`, rawBody), offered),
    );
    if (secretIndex === -1) return fail('bad_signature', 'no Slack signature matched any configured secret');
    const text = decodeUtf8Strict(rawBody);
    if (text === undefined) return fail('malformed', 'body is not valid UTF-8');
    const signedAt = new Date(timestamp * 1000);
    const json = parseJson(text);
    if (json.ok) {
      const type = stringField(json.value, 'event', 'type') ?? stringField(json.value, 'type');
      if (!type) return fail('malformed', 'verified body has no type');
      return {
        ok: true,
        eventId: stringField(json.value, 'event_id') ?? signedContentId(timestampText, text),
        type,
        timestamp: signedAt,
        secretIndex,
        payload: json.value,
        storedBody: rawBody,
      };
    }
    const fields: Record<string, unknown> = formObject(formParams(text));
    const interaction = typeof fields.payload === 'string' ? parseJson(fields.payload) : undefined;
    if (interaction?.ok) fields.payload = interaction.value;
    const type = interaction?.ok ? (stringField(interaction.value, 'type') ?? 'interaction') : 'slash_command';
    return {
      ok: true,
      eventId: signedContentId(timestampText, text),
      type,
      timestamp: signedAt,
      secretIndex,
      payload: fields,
      storedBody: Buffer.from(JSON.stringify(fields)),
    };
  },
};
