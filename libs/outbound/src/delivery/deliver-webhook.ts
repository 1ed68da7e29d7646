import { systemClock } from '@berth/contract';
import { performance } from 'node:perf_hooks';
import { isDeliveryTarget, resolveDeliveryTarget } from './delivery-target';
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DELIVERY_USER_AGENT,
  type DeliveryAttempt,
  type DeliveryOptions,
  type DeliveryOutcome,
  type DeliveryRequest,
} from './delivery-types';
import { postPinned, type PinnedResponse } from './post-pinned';
import { systemResolveHost } from './resolve-host';
import { parseRetryAfter } from './retry-after';
import { signWebhook } from './sign-webhook';

/**
 * Makes one attempt to deliver a signed Standard Webhooks message to a customer's endpoint, and says what to do
 * next. SSRF-safe: the URL must be http(s) without credentials; its host is resolved once and every address must
 * pass the policy, then the connection goes to the address that was checked. Redirects are never followed. The
 * whole attempt (resolution, connection, response) has one deadline, and at most `maxResponseBytes` of the body is
 * read. Never throws for anything the endpoint or the network does: every failure is an attempt with an outcome.
 */
export async function deliverWebhook(request: DeliveryRequest, options: DeliveryOptions): Promise<DeliveryAttempt> {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  const startedAt = clock.now();
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    const target = await withDeadline(
      resolveDeliveryTarget(request.url, options.policy, options.resolve ?? systemResolveHost),
      deadline.signal,
    );
    if (target === undefined)
      return {
        outcome: 'retry',
        startedAt,
        durationMs: elapsed(),
        error: `timed out after ${timeoutMs} ms resolving the host`,
      };
    if (!isDeliveryTarget(target)) return { ...target, startedAt, durationMs: elapsed() };
    let response: PinnedResponse;
    try {
      response = await postPinned({
        target,
        headers: deliveryHeaders(request),
        body: request.payload,
        maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        signal: deadline.signal,
        ca: options.ca,
      });
    } catch (error) {
      if (isInvalidRequestError(error))
        return {
          outcome: 'refused',
          startedAt,
          durationMs: elapsed(),
          address: target.address,
          error: describeError(error),
        };
      const reason = deadline.signal.aborted ? `timed out after ${timeoutMs} ms` : describeError(error);
      return { outcome: 'retry', startedAt, durationMs: elapsed(), address: target.address, error: reason };
    }
    return { ...judgeResponse(response, clock.now()), startedAt, durationMs: elapsed(), address: target.address };
  } finally {
    clearTimeout(timer);
  }
}

/** Headers a caller cannot set: they would change the framing of the request or where it claims to go. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

function deliveryHeaders(request: DeliveryRequest): Record<string, string> {
  const extra = Object.fromEntries(
    Object.entries(request.headers ?? {})
      .map(([name, value]) => [name.toLowerCase(), value] as const)
      .filter(([name]) => !RESERVED_HEADERS.has(name)),
  );
  return {
    ...extra,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(request.payload)),
    'user-agent': DELIVERY_USER_AGENT,
    'webhook-id': request.messageId,
    'webhook-timestamp': String(Math.floor(request.timestamp.getTime() / 1000)),
    'webhook-signature': signWebhook(request),
  };
}

function judgeResponse(
  response: PinnedResponse,
  now: Date,
): Pick<DeliveryAttempt, 'outcome' | 'statusCode' | 'responseBody' | 'retryAfterMs' | 'error'> {
  const { statusCode, headers } = response;
  const responseBody = response.body.toString('utf8');
  const outcome: DeliveryOutcome =
    statusCode >= 200 && statusCode < 300 ? 'delivered' : statusCode === 410 ? 'gone' : 'retry';
  const judged = { outcome, statusCode, responseBody };
  if (outcome === 'delivered') return judged;
  const retryAfterMs =
    statusCode === 429 || statusCode === 503 ? parseRetryAfter(headers['retry-after'], now) : undefined;
  const error =
    statusCode >= 300 && statusCode < 400
      ? `HTTP ${statusCode}: redirect${headers.location ? ` to ${headers.location}` : ''} not followed`
      : `HTTP ${statusCode}`;
  return retryAfterMs === undefined ? { ...judged, error } : { ...judged, error, retryAfterMs };
}

/** The promise's value, or undefined once the signal aborts first. */
function withDeadline<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Node's own refusal of a header name or value (a CR/LF, a non-token character): no retry can fix it. */
function isInvalidRequestError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN';
}

function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
