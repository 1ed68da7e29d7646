import type { Clock } from '@berth/contract';
import Stripe from 'stripe';
import { decodeUtf8Strict, parseJson, topLevelId, assertSecrets } from './input';
import { fail, type VerificationResult } from './result';
import { isWithinTolerance, parseUnixSeconds, readClockMillis, resolveTolerance, toleranceMessage } from './timing';

/** Input for {@link verifyStripeSignature}. */
export interface StripeVerifyInput {
  /** The request body exactly as received (prefer the Buffer; never a re-serialized object). */
  readonly rawBody: Buffer | string;
  /** Value of the `Stripe-Signature` header. */
  readonly signatureHeader: string | undefined;
  /** Endpoint signing secrets (`whsec_...`); several during rotation, any one may match. */
  readonly secrets: readonly string[];
  /** Clock used for the tolerance check; defaults to the wall clock. */
  readonly clock?: Clock;
  /** Maximum distance between the signed timestamp and now, in seconds (default 300). */
  readonly toleranceSeconds?: number;
}

/**
 * Verifies a Stripe webhook with the official `stripe` library
 * (`Stripe.webhooks.signature.verifyHeader`, given the injected clock through its
 * `receivedAt` argument). Stripe only rejects timestamps that are too OLD, so this also rejects
 * timestamps more than the tolerance in the future. On success `eventId` is the event's `id`.
 *
 * @throws only for programmer errors (no secrets, blank secret, invalid tolerance or clock).
 */
export function verifyStripeSignature(input: StripeVerifyInput): VerificationResult {
  assertSecrets(input.secrets, 'Stripe');
  const tolerance = resolveTolerance(input.toleranceSeconds);
  const nowMillis = readClockMillis(input.clock);
  const header = input.signatureHeader;
  if (header === undefined || header === '') return fail('missing_header', 'Stripe-Signature header is missing');

  const timestamp = readStripeTimestamp(header);
  if (timestamp === undefined) return fail('malformed', 'Stripe-Signature header has no single t=<unix seconds>');
  if (hasEmptySignature(header)) return fail('malformed', 'Stripe-Signature header has an empty v1 signature');
  const body = decodeUtf8Strict(input.rawBody);
  if (body === undefined) return fail('malformed', 'body is not valid UTF-8');
  if (body === '') return fail('malformed', 'body is empty');
  if (!isWithinTolerance(timestamp, nowMillis, tolerance)) {
    return fail('timestamp_out_of_tolerance', toleranceMessage(timestamp, nowMillis, tolerance));
  }

  const secretIndex = input.secrets.findIndex((secret) => stripeAccepts(body, header, secret, tolerance, nowMillis));
  if (secretIndex === -1) return fail('bad_signature', 'no Stripe signature matched any configured secret');

  const parsed = parseJson(body);
  if (!parsed.ok) return fail('malformed', 'verified body is not JSON');
  const eventId = topLevelId(parsed.value);
  if (eventId === undefined) return fail('malformed', 'verified Stripe event has no string id');
  return { ok: true, eventId, timestamp: new Date(timestamp * 1000), secretIndex, payload: parsed.value };
}

/** Asks the stripe library whether `secret` signed this delivery; only its verification error means "no". */
function stripeAccepts(body: string, header: string, secret: string, tolerance: number, nowMillis: number): boolean {
  const signature = Stripe.webhooks.signature;
  if (signature === null) throw new Error('stripe library has no webhook signature helper');
  try {
    return signature.verifyHeader(body, header, secret, tolerance, undefined, nowMillis);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) return false;
    throw error;
  }
}

/** A `v1` item without a value: the stripe library throws on it (instead of answering "no match"). */
function hasEmptySignature(header: string): boolean {
  return header.split(',').some((item) => {
    const [key, value] = item.split('=');
    return key === 'v1' && !value;
  });
}

/**
 * Extracts `t` from `t=...,v1=...` the way Stripe splits it, but strictly: exactly one `t`,
 * all digits, so our future-timestamp check sees the same value Stripe signs over.
 */
function readStripeTimestamp(header: string): number | undefined {
  const values = header
    .split(',')
    .filter((item) => item.split('=')[0] === 't')
    .map((item) => item.slice(2));
  return values.length === 1 ? parseUnixSeconds(values[0]) : undefined;
}
