import type { Clock } from '@berth/contract';
import { timingSafeEqual } from 'node:crypto';
import { assertSecrets, decodeUtf8Strict, parseJson, readSingleHeader, type HeaderBag } from './input';
import { fail, type VerificationResult } from './result';
import { isWithinTolerance, parseUnixSeconds, readClockMillis, resolveTolerance, toleranceMessage } from './timing';

/** Input shared by the Svix and Standard Webhooks verifiers. */
export interface V1SchemeVerifyInput {
  /** The request body exactly as received (prefer the Buffer; never a re-serialized object). */
  readonly rawBody: Buffer | string;
  /** Request headers (Node's `req.headers` works as is). */
  readonly headers: HeaderBag;
  /** Signing secrets (`whsec_<base64>`); several during rotation, any one may match. */
  readonly secrets: readonly string[];
  /** Clock used for the tolerance check; defaults to the wall clock. */
  readonly clock?: Clock;
  /** Maximum distance between the signed timestamp and now, in seconds (default 300). */
  readonly toleranceSeconds?: number;
}

/** The provider library's signer: `sign(msgId, timestamp, payload)` returns `v1,<base64>`. */
export interface V1Signer {
  sign(msgId: string, timestamp: Date, payload: string): string;
}

/** How one provider names its headers and builds its signer. */
export interface V1Scheme {
  readonly name: string;
  readonly idHeader: string;
  readonly timestampHeader: string;
  readonly signatureHeader: string;
  readonly createSigner: (secret: string) => V1Signer;
}

/**
 * Verifies the `v1,<base64 HMAC-SHA256 of id.timestamp.body>` scheme shared by Svix and
 * Standard Webhooks. The providers' `verify()` compares the timestamp with `Date.now()` and
 * cannot take a clock, so the timestamp is checked here with the injected clock and the
 * provider library's own `sign()` computes the expected signature, compared in constant time.
 */
export function verifyV1Scheme(scheme: V1Scheme, input: V1SchemeVerifyInput): VerificationResult {
  assertSecrets(input.secrets, scheme.name);
  const tolerance = resolveTolerance(input.toleranceSeconds);
  const nowMillis = readClockMillis(input.clock);
  const signers = input.secrets.map((secret, index) => createSignerOrThrow(scheme, secret, index));

  const names = [scheme.idHeader, scheme.timestampHeader, scheme.signatureHeader];
  const reads = names.map((name) => readSingleHeader(input.headers, name));
  const missing = names.filter((_, i) => reads[i].kind === 'missing');
  if (missing.length > 0) return fail('missing_header', `missing header(s): ${missing.join(', ')}`);
  const duplicated = names.filter((_, i) => reads[i].kind === 'duplicate');
  if (duplicated.length > 0) return fail('malformed', `header(s) sent more than once: ${duplicated.join(', ')}`);
  const [msgId, timestampText, signatureText] = reads.map((read) => (read.kind === 'ok' ? read.value : ''));

  const timestamp = parseUnixSeconds(timestampText);
  if (timestamp === undefined) return fail('malformed', `${scheme.timestampHeader} is not unix seconds`);
  const body = decodeUtf8Strict(input.rawBody);
  if (body === undefined) return fail('malformed', 'body is not valid UTF-8');
  if (!isWithinTolerance(timestamp, nowMillis, tolerance)) {
    return fail('timestamp_out_of_tolerance', toleranceMessage(timestamp, nowMillis, tolerance));
  }

  const offered = signatureText
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  const signedAt = new Date(timestamp * 1000);
  const secretIndex = signers.findIndex((signer) => {
    const expected = signer.sign(msgId, signedAt, body).slice(3);
    return offered.some((candidate) => constantTimeEqual(candidate, expected));
  });
  if (secretIndex === -1) return fail('bad_signature', `no ${scheme.name} v1 signature matched any configured secret`);

  const parsed = parseJson(body);
  if (!parsed.ok) return fail('malformed', 'verified body is not JSON');
  return { ok: true, eventId: msgId, timestamp: signedAt, secretIndex, payload: parsed.value };
}

/** Builds the library signer, turning "bad secret" into a config error that names the index, not the secret. */
function createSignerOrThrow(scheme: V1Scheme, secret: string, index: number): V1Signer {
  try {
    return scheme.createSigner(secret);
  } catch {
    throw new TypeError(`${scheme.name}: secrets[${index}] is not a valid signing secret`);
  }
}

/** Length-checked constant-time comparison of two ASCII signature strings. */
function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
