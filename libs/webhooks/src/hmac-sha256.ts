import type { Clock } from '@berth/contract';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { assertSecrets, decodeUtf8Strict, parseJson, readSingleHeader, topLevelId, type HeaderBag } from './input';
import { fail, type VerificationResult } from './result';
import { isWithinTolerance, parseUnixSeconds, readClockMillis, resolveTolerance, toleranceMessage } from './timing';

/** Default header carrying the signature in the generic scheme. */
export const DEFAULT_HMAC_SIGNATURE_HEADER = 'x-signature';
/** Default header carrying the unix-seconds timestamp in the generic scheme. */
export const DEFAULT_HMAC_TIMESTAMP_HEADER = 'x-timestamp';

/** Input for {@link verifyHmacSha256}. */
export interface HmacSha256VerifyInput {
  /** The request body exactly as received (prefer the Buffer; never a re-serialized object). */
  readonly rawBody: Buffer | string;
  /** Request headers (Node's `req.headers` works as is). */
  readonly headers: HeaderBag;
  /** Shared secrets, used as UTF-8 HMAC keys; several during rotation, any one may match. */
  readonly secrets: readonly string[];
  /** Clock used for the tolerance check; defaults to the wall clock. */
  readonly clock?: Clock;
  /** Maximum distance between the signed timestamp and now, in seconds (default 300). */
  readonly toleranceSeconds?: number;
  /** Header holding the signature (default `x-signature`). */
  readonly signatureHeaderName?: string;
  /** Header holding the unix-seconds timestamp (default `x-timestamp`). */
  readonly timestampHeaderName?: string;
  /**
   * Extracts the event id from the verified, parsed body (default: top-level string `id`).
   * To use a header instead, close over it: `eventIdFrom: () => headerValue`.
   * Returning `undefined` (or throwing) fails the delivery as `malformed`.
   */
  readonly eventIdFrom?: (payload: unknown) => string | undefined;
}

/** Input for {@link signHmacSha256}. */
export interface HmacSha256SignInput {
  readonly secret: string;
  /** Unix seconds; send the same number in the timestamp header. */
  readonly timestamp: number;
  readonly rawBody: Buffer | string;
  /** Output encoding (default `hex`). */
  readonly encoding?: 'hex' | 'base64';
}

/**
 * Signs a body for the generic scheme: HMAC-SHA256 over `${timestamp}.${rawBody}` with the
 * secret as UTF-8 key. For tests and for Berth components that send signed webhooks.
 * Returns the bare signature (no `sha256=` prefix).
 *
 * @throws RangeError if `timestamp` is not a non-negative integer.
 */
export function signHmacSha256(input: HmacSha256SignInput): string {
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new RangeError('timestamp must be a non-negative integer number of unix seconds');
  }
  return hmac(input.secret, String(input.timestamp), input.rawBody).toString(input.encoding ?? 'hex');
}

/**
 * Verifies the generic HMAC-SHA256 scheme used by senders without a provider library:
 * signature header is hex or base64 (optionally prefixed `sha256=`) of
 * HMAC-SHA256(secret, `${timestampHeader}.${rawBody}`) over the exact raw bytes, compared with
 * `crypto.timingSafeEqual`. The timestamp must be within the tolerance in both directions.
 *
 * @throws only for programmer errors (no secrets, blank secret, invalid tolerance or clock).
 */
export function verifyHmacSha256(input: HmacSha256VerifyInput): VerificationResult {
  assertSecrets(input.secrets, 'HMAC-SHA256');
  const tolerance = resolveTolerance(input.toleranceSeconds);
  const nowMillis = readClockMillis(input.clock);
  const names = [
    input.signatureHeaderName ?? DEFAULT_HMAC_SIGNATURE_HEADER,
    input.timestampHeaderName ?? DEFAULT_HMAC_TIMESTAMP_HEADER,
  ];
  const reads = names.map((name) => readSingleHeader(input.headers, name));
  const missing = names.filter((_, i) => reads[i].kind === 'missing');
  if (missing.length > 0) return fail('missing_header', `missing header(s): ${missing.join(', ')}`);
  const [signatureRead, timestampRead] = reads;
  if (signatureRead.kind !== 'ok' || timestampRead.kind !== 'ok') {
    return fail(
      'malformed',
      `header(s) sent more than once: ${names.filter((_, i) => reads[i].kind === 'duplicate').join(', ')}`,
    );
  }

  const timestamp = parseUnixSeconds(timestampRead.value);
  if (timestamp === undefined) return fail('malformed', `${names[1]} is not unix seconds`);
  const offered = decodeSignature(signatureRead.value);
  if (offered === undefined) return fail('malformed', `${names[0]} is not a hex or base64 SHA-256 signature`);
  const body = decodeUtf8Strict(input.rawBody);
  if (body === undefined) return fail('malformed', 'body is not valid UTF-8');
  if (!isWithinTolerance(timestamp, nowMillis, tolerance)) {
    return fail('timestamp_out_of_tolerance', toleranceMessage(timestamp, nowMillis, tolerance));
  }

  const secretIndex = input.secrets.findIndex((secret) => {
    const expected = hmac(secret, timestampRead.value, input.rawBody);
    return expected.length === offered.length && timingSafeEqual(expected, offered);
  });
  if (secretIndex === -1) return fail('bad_signature', 'no HMAC-SHA256 signature matched any configured secret');

  const parsed = parseJson(body);
  if (!parsed.ok) return fail('malformed', 'verified body is not JSON');
  const eventId = extractEventId(input.eventIdFrom ?? topLevelId, parsed.value);
  if (eventId === undefined) return fail('malformed', 'no event id in verified body');
  return { ok: true, eventId, timestamp: new Date(timestamp * 1000), secretIndex, payload: parsed.value };
}

/** Runs the caller's extractor; a throw or non-string (driven by request content) counts as "no id". */
function extractEventId(eventIdFrom: (payload: unknown) => string | undefined, payload: unknown): string | undefined {
  try {
    const id = eventIdFrom(payload);
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** HMAC-SHA256 over `${timestampText}.` followed by the raw body bytes (no re-encoding of a Buffer). */
function hmac(secret: string, timestampText: string, rawBody: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(`${timestampText}.`, 'utf8').update(rawBody).digest();
}

/** Accepts `[sha256=]` + 64 hex chars or 43 base64/base64url chars (+ optional `=`); anything else is malformed. */
function decodeSignature(header: string): Buffer | undefined {
  const value = header.startsWith('sha256=') ? header.slice('sha256='.length) : header;
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(value) || /^[A-Za-z0-9_-]{43}=?$/.test(value)) return Buffer.from(value, 'base64');
  return undefined;
}
