import { decodeUtf8Strict, parseJson } from '../input';
import { fail } from '../result';
import { readClockMillis } from '../timing';
import { formObject, formParams } from './form-body';
import {
  headerValue,
  signedContentId,
  stringField,
  type PresetVerificationResult,
  type PresetVerifyInput,
} from './preset';
import type { SignedRequest } from './schemes';
import type { JsonEventFields, Place, PresetRow } from './table';

function read(place: Place, input: PresetVerifyInput, payload: unknown): string | undefined {
  return 'header' in place ? headerValue(input.headers, place.header) : stringField(payload, ...place.body);
}

function first(places: readonly Place[], input: PresetVerifyInput, payload: unknown): string | undefined {
  for (const place of places) {
    const value = read(place, input, payload);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The name a `malformed` message gives a body field: its last place's path. */
function bodyName(places: readonly Place[]): string | undefined {
  const place = places.at(-1);
  return place && 'body' in place ? place.body.join('.') : undefined;
}

/** The event of a verified JSON body: id, type and time where the row says they are. */
function jsonEvent(
  fields: JsonEventFields,
  input: PresetVerifyInput,
  signed: SignedRequest,
  payload: unknown,
  text: string,
): PresetVerificationResult {
  let timestamp = signed.verified?.timestamp ?? signed.signedAt;
  if (fields.sentAt) {
    const name = fields.sentAt.body.join('.');
    const sentAt = Number(stringField(payload, ...fields.sentAt.body));
    const nowMillis = readClockMillis(input.clock);
    if (!Number.isFinite(sentAt)) return fail('malformed', `verified body has no ${name}`);
    if (Math.abs(nowMillis - sentAt) > fields.sentAt.toleranceMs)
      return fail(
        'timestamp_out_of_tolerance',
        `${name} is ${Math.round((nowMillis - sentAt) / 1000)}s from now; tolerance is ${fields.sentAt.toleranceMs / 1000}s`,
      );
    timestamp = new Date(sentAt);
  }
  const eventId =
    first(fields.id, input, payload) ??
    signed.verified?.eventId ??
    (fields.idFromSignedContent ? signedContentId(...signed.signedParts, text) : undefined);
  const base = first(fields.type, input, payload);
  if (eventId === undefined || base === undefined) {
    const read = [fields.idFromSignedContent ? undefined : bodyName(fields.id), bodyName(fields.type)];
    return fail('malformed', `verified body has no ${read.filter(Boolean).join(' or ')}`);
  }
  const action = fields.action && stringField(payload, ...fields.action);
  return {
    ...signed.verified,
    ok: true,
    eventId,
    type: action ? `${base}.${action}` : base,
    timestamp: timestamp ?? new Date(readClockMillis(input.clock)),
    secretIndex: signed.secretIndex,
    payload,
    storedBody: input.rawBody,
  };
}

/**
 * Slack's form bodies: interactivity (`payload`, JSON, typed by its `type`) and slash commands. No id: the id is
 * a hash of the signed content; the stored body is the fields as JSON, `payload` parsed.
 */
function slackFormEvent(input: PresetVerifyInput, signed: SignedRequest, text: string): PresetVerificationResult {
  const fields: Record<string, unknown> = formObject(formParams(text));
  const interaction = typeof fields.payload === 'string' ? parseJson(fields.payload) : undefined;
  if (interaction?.ok) fields.payload = interaction.value;
  const type = interaction?.ok ? (stringField(interaction.value, 'type') ?? 'interaction') : 'slash_command';
  return {
    ok: true,
    eventId: signedContentId(...signed.signedParts, text),
    type,
    timestamp: signed.signedAt ?? new Date(readClockMillis(input.clock)),
    secretIndex: signed.secretIndex,
    payload: fields,
    storedBody: Buffer.from(JSON.stringify(fields)),
  };
}

/** Reads the event of a request whose signature holds, from the body the row describes. */
export function readEvent(row: PresetRow, input: PresetVerifyInput, signed: SignedRequest): PresetVerificationResult {
  const body = row.body;
  if (body.kind === 'twilio-form') {
    const { params, signed: content } = signed.form!;
    const fields = formObject(params);
    const typed = body.type.find(({ field }) => fields[field]);
    return {
      ok: true,
      eventId: headerValue(input.headers, body.idHeader) ?? signedContentId(content),
      type: typed ? `${typed.prefix}${fields[typed.field]}` : body.typeFallback,
      timestamp: new Date(readClockMillis(input.clock)),
      secretIndex: signed.secretIndex,
      payload: fields,
      storedBody: Buffer.from(JSON.stringify(fields)),
    };
  }
  if (signed.verified) return jsonEvent(body.fields, input, signed, signed.verified.payload, '');
  const text = decodeUtf8Strict(input.rawBody);
  if (body.kind === 'json-or-slack-form') {
    if (text === undefined) return fail('malformed', 'body is not valid UTF-8');
    const json = parseJson(text);
    return json.ok ? jsonEvent(body.fields, input, signed, json.value, text) : slackFormEvent(input, signed, text);
  }
  const parsed = text === undefined ? undefined : parseJson(text);
  if (!parsed?.ok) return fail('malformed', body.fields.notJson ?? 'verified body is not JSON');
  return jsonEvent(body.fields, input, signed, parsed.value, text!);
}
