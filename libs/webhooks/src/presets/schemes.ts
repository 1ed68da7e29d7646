import { decodeUtf8Strict } from '../input';
import { fail, type VerificationFailure, type VerificationResult } from '../result';
import { verifyStandardWebhook } from '../standard-webhooks';
import { verifySvixSignature } from '../svix';
import { isWithinTolerance, parseUnixSeconds, readClockMillis, toleranceMessage } from '../timing';
import { formParams } from './form-body';
import { fromBase64, fromHex, headerValue, hmac, macEquals, matchingSecret, type PresetVerifyInput } from './preset';
import type { PresetRow, SignatureScheme } from './table';

/** A request whose signature holds: which secret signed, when (if signed), and what the event readers need. */
export interface SignedRequest {
  readonly ok: true;
  readonly secretIndex: number;
  /** The signed timestamp, for schemes that sign one. */
  readonly signedAt?: Date;
  /** What was signed besides the body, for an id hashed from the signed content (Slack's timestamp). */
  readonly signedParts: readonly string[];
  /** Twilio: the form parameters and the exact signed content. */
  readonly form?: { readonly params: [string, string][]; readonly signed: string };
  /** The `v1,` schemes parse and identify the event themselves. */
  readonly verified?: VerificationResult & { ok: true };
}

/** What a scheme's verifier returns; it never throws for request content. */
export type SchemeResult = SignedRequest | VerificationFailure;

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

/** `missing header(s): a` for one, `missing header(s): a, b and c are required` for several. */
function missingHeaders(names: readonly string[]): VerificationFailure {
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)} are required`;
  return fail('missing_header', `missing header(s): ${list}`);
}

function noMatch(row: PresetRow): VerificationFailure {
  return fail('bad_signature', `no ${row.label} signature matched any configured ${row.secretName ?? 'secret'}`);
}

/** The `key=value` entries of a `;`-separated header, in order. */
function headerFields(header: string): [string, string?][] {
  return header.split(';').map((part) => part.split('=', 2) as [string, string?]);
}

function verifyBodyHmac(
  row: PresetRow,
  scheme: SignatureScheme & { kind: 'body-hmac' },
  input: PresetVerifyInput,
): SchemeResult {
  const required = [scheme.header, ...(row.requiredHeaders ?? [])];
  if (required.some((name) => !headerValue(input.headers, name))) return missingHeaders(required);
  const signature = headerValue(input.headers, scheme.header)!;
  const encoded = signature.startsWith(scheme.prefix) ? signature.slice(scheme.prefix.length) : undefined;
  const offered = scheme.encoding === 'hex' ? fromHex(encoded, 32) : fromBase64(encoded, 32);
  if (!offered)
    return fail(
      'malformed',
      scheme.encoding === 'hex'
        ? `${scheme.header} is not ${scheme.prefix ? `${scheme.prefix}<64 hex>` : '64 hex'}`
        : `${scheme.header} is not a base64 SHA-256 HMAC`,
    );
  const secretIndex = matchingSecret(input.secrets, (secret) =>
    macEquals(hmac('sha256', secret, input.rawBody), offered),
  );
  return secretIndex === -1 ? noMatch(row) : { ok: true, secretIndex, signedParts: [] };
}

function verifyTimestampedHmac(
  row: PresetRow,
  scheme: SignatureScheme & { kind: 'timestamped-hmac' },
  input: PresetVerifyInput,
): SchemeResult {
  const required = [scheme.header, ...('header' in scheme.timestamp ? [scheme.timestamp.header] : [])];
  if (required.some((name) => !headerValue(input.headers, name))) return missingHeaders(required);
  const header = headerValue(input.headers, scheme.header)!;
  const fields = headerFields(header);
  const timestampText =
    'header' in scheme.timestamp
      ? headerValue(input.headers, scheme.timestamp.header)
      : fields.find(([key]) => key === (scheme.timestamp as { field: string }).field)?.[1];
  const offered =
    'prefix' in scheme.signature
      ? [
          header.startsWith(scheme.signature.prefix)
            ? fromHex(header.slice(scheme.signature.prefix.length), 32)
            : undefined,
        ]
      : fields
          .filter(([key]) => key === (scheme.signature as { field: string }).field)
          .map(([, value]) => fromHex(value, 32));
  const timestamp = timestampText === undefined ? undefined : parseUnixSeconds(timestampText);
  if (timestamp === undefined || offered.length === 0 || offered.some((value) => value === undefined))
    return fail('malformed', scheme.format);
  const nowMillis = readClockMillis(input.clock);
  if (!isWithinTolerance(timestamp, nowMillis, scheme.toleranceSeconds))
    return fail('timestamp_out_of_tolerance', toleranceMessage(timestamp, nowMillis, scheme.toleranceSeconds));
  const signedPrefix = scheme.signedPrefix.replace('{ts}', timestampText!);
  const secretIndex = matchingSecret(input.secrets, (secret) => {
    const expected = hmac('sha256', secret, signedPrefix, input.rawBody);
    return offered.some((value) => macEquals(expected, value));
  });
  return secretIndex === -1
    ? noMatch(row)
    : { ok: true, secretIndex, signedAt: new Date(timestamp * 1000), signedParts: [timestampText!] };
}

function verifyUrlFormHmacSha1(
  row: PresetRow,
  scheme: SignatureScheme & { kind: 'url-form-hmac-sha1' },
  input: PresetVerifyInput,
): SchemeResult {
  if (!input.url) throw new TypeError(`${row.name}: the endpoint's public url is required`);
  const signature = headerValue(input.headers, scheme.header);
  if (!signature) return missingHeaders([scheme.header]);
  const offered = fromBase64(signature, 20);
  if (!offered) return fail('malformed', `${scheme.header} is not a base64 SHA-1 HMAC`);
  const text = decodeUtf8Strict(input.rawBody);
  if (text === undefined) return fail('malformed', 'body is not valid UTF-8');
  const params = formParams(text);
  const signed = twilioSignedContent(input.url, params);
  const secretIndex = matchingSecret(input.secrets, (secret) => macEquals(hmac('sha1', secret, signed), offered));
  return secretIndex === -1 ? noMatch(row) : { ok: true, secretIndex, signedParts: [], form: { params, signed } };
}

function fromV1(result: VerificationResult): SchemeResult {
  return result.ok ? { ok: true, secretIndex: result.secretIndex, signedParts: [], verified: result } : result;
}

/** Checks the request's signature by its provider's scheme. */
export function verifySignature(row: PresetRow, input: PresetVerifyInput): SchemeResult {
  const scheme = row.scheme;
  switch (scheme.kind) {
    case 'body-hmac':
      return verifyBodyHmac(row, scheme, input);
    case 'timestamped-hmac':
      return verifyTimestampedHmac(row, scheme, input);
    case 'url-form-hmac-sha1':
      return verifyUrlFormHmacSha1(row, scheme, input);
    case 'standard-webhooks':
      return fromV1(verifyStandardWebhook(input));
    case 'svix':
      return fromV1(verifySvixSignature(input));
  }
}
