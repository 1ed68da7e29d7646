import type { Clock } from '@berth/contract';
import type { AddressPolicy } from './address-policy';
import type { ResolveHost } from './resolve-host';

/** One attempt to deliver one message to one endpoint. */
export interface DeliveryRequest {
  /** The endpoint, `http:` or `https:`, without credentials. */
  url: string;
  /** Becomes `webhook-id`: the same for every attempt of the message, so the receiver can deduplicate. */
  messageId: string;
  /** Becomes `webhook-timestamp` and is signed; usually the time of this attempt. */
  timestamp: Date;
  /** The JSON text of the body, sent and signed byte for byte. */
  payload: string;
  /** Every active secret of the endpoint; each signs, so a rotation has an overlap. */
  secrets: readonly string[];
  /** Extra headers. The `webhook-*`, `content-type`, `content-length` and `user-agent` headers are always Berth's. */
  headers?: Record<string, string>;
}

/** The environment of a delivery: what it may connect to and how long it may take. */
export interface DeliveryOptions {
  /** Which addresses may be connected to (see `createAddressPolicy`). */
  policy: AddressPolicy;
  /** Host name resolution, done once per attempt; the system resolver by default. */
  resolve?: ResolveHost;
  /** Deadline of the whole attempt, resolution and connection and response included; 15 000 by default. */
  timeoutMs?: number;
  /** How much of the response body is read and kept; 4096 bytes by default. The rest is never read. */
  maxResponseBytes?: number;
  /** The current time, for `startedAt` and HTTP-date `Retry-After` values. */
  clock?: Clock;
  /**
   * The root certificates (PEM) `https:` endpoints are verified against, instead of node's bundled Mozilla store:
   * for endpoints behind a private CA, and tests. Verification itself is never turned off.
   */
  ca?: string | readonly string[];
}

/**
 * - `delivered`: the endpoint answered 2xx.
 * - `gone`: it answered 410; the endpoint asks to be disabled.
 * - `refused`: nothing was sent and nothing would change on a retry (an invalid URL, or an address the policy refuses).
 * - `retry`: anything else: a network error, a timeout, a redirect (never followed), any other 3xx, 4xx or 5xx.
 */
export type DeliveryOutcome = 'delivered' | 'retry' | 'gone' | 'refused';

/** The record of one attempt, for the delivery log and the retry decision. */
export interface DeliveryAttempt {
  outcome: DeliveryOutcome;
  /** The HTTP status, when the endpoint answered. */
  statusCode?: number;
  /** From the start of the attempt to its outcome, in milliseconds. */
  durationMs: number;
  startedAt: Date;
  /** The first `maxResponseBytes` bytes of the response body, decoded as UTF-8. */
  responseBody?: string;
  /** What `Retry-After` asked for, on 429 and 503 only. */
  retryAfterMs?: number;
  /** Why the attempt is `retry` or `refused`, for people reading the log. */
  error?: string;
  /** The IP address connected to (or, for `refused`, the one refused). */
  address?: string;
}

/** The `user-agent` of every delivery. */
export const DELIVERY_USER_AGENT = 'Berth-Webhooks/0.1';
/** Default of {@link DeliveryOptions.timeoutMs}. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 15_000;
/** Default of {@link DeliveryOptions.maxResponseBytes}. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4096;
