import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readSingleHeader, type HeaderBag } from '../input';
import type { VerificationFailure, VerificationSuccess } from '../result';
import type { Clock } from '@berth/contract';

/** What a preset verifies: one request, exactly as received. */
export interface PresetVerifyInput {
  readonly rawBody: Buffer;
  readonly headers: HeaderBag;
  /** Every secret that may have signed it (several during a rotation). */
  readonly secrets: readonly string[];
  /** Clock used for the tolerance check and the event time when none is signed; defaults to the wall clock. */
  readonly clock?: Clock;
  /** The public URL the provider posts to; Twilio signs it. */
  readonly url?: string;
}

/** A verified delivery of a preset: the event's id and type, read where the provider puts them, and what to store. */
export interface PresetVerificationSuccess extends VerificationSuccess {
  readonly type: string;
  /** The bytes to store: the raw body for JSON, a JSON rendering of the verified parameters for a form body. */
  readonly storedBody: Buffer;
}

/** What a preset's verifier returns; it never throws for request content. */
export type PresetVerificationResult = PresetVerificationSuccess | VerificationFailure;

/** One provider of the catalog: how it signs, where its id and type are, and the shortest secret accepted. */
export interface WebhookPreset {
  readonly name: string;
  /** Configuration needs the endpoint's public URL (`url`). */
  readonly needsUrl?: boolean;
  /** Secrets shorter than this (in characters) are refused at start-up. */
  readonly minSecretLength: number;
  /**
   * The request headers kept with each event for its handler (lower case): those the provider signs or identifies
   * the event with. A small allow-list, never cookies or authorization.
   */
  readonly keptHeaders: readonly string[];
  verify(input: PresetVerifyInput): PresetVerificationResult;
}

/** Secrets shorter than this are refused for every HMAC scheme: a guessable key is no signature. */
export const MIN_HMAC_SECRET_LENGTH = 16;

/** The header's single value, or undefined when it is absent, empty or repeated. */
export function headerValue(headers: HeaderBag, name: string): string | undefined {
  const read = readSingleHeader(headers, name);
  return read.kind === 'ok' ? read.value : undefined;
}

/** HMAC of the parts, in order. */
export function hmac(algorithm: 'sha256' | 'sha1', secret: string, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac(algorithm, secret);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Constant-time equality of a computed MAC and the offered bytes. */
export function macEquals(expected: Buffer, offered: Buffer | undefined): boolean {
  return offered !== undefined && expected.length === offered.length && timingSafeEqual(expected, offered);
}

/** Decodes a hex string strictly; undefined when it is not hex of the wanted length. */
export function fromHex(text: string | undefined, bytes: number): Buffer | undefined {
  return text !== undefined && new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(text)
    ? Buffer.from(text, 'hex')
    : undefined;
}

/** Decodes a base64 string strictly; undefined when it is not base64 of the wanted length. */
export function fromBase64(text: string | undefined, bytes: number): Buffer | undefined {
  if (text === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64');
  return decoded.length === bytes ? decoded : undefined;
}

/** The index of the first secret whose MAC matches, or -1. */
export function matchingSecret(secrets: readonly string[], matches: (secret: string) => boolean): number {
  return secrets.findIndex(matches);
}

/** A string field of a JSON object, or undefined. */
export function stringField(value: unknown, ...path: string[]): string | undefined {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'string' && current !== ''
    ? current
    : typeof current === 'number'
      ? String(current)
      : undefined;
}

/**
 * An id for a provider that sends none: SHA-256 of what it signed. A retry of the same delivery signs the same
 * content, so it gets the same id and the inbox applies it once; two deliveries differing in any signed byte
 * (a Slack timestamp, say) get two ids.
 */
export function signedContentId(...parts: string[]): string {
  return `sha256-${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 40)}`;
}
