import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteParams } from '@berth/http-guard';
import type { BerthLogger } from '@berth/logger';
import type { Clock } from '@berth/contract';
import type { VerificationSuccess } from '@berth/webhooks';
import { UNKNOWN_PROVIDER_LABEL, type GatewayMetrics, type InboundOutcome } from './metrics';
import type { DeliveredEvent, ProviderEndpoint } from './providers';
import type { PublishOutcome, WebhookPublisher } from './publisher';
import { BodySlots } from './body-slots';
import { clientIp, type ClientIpOptions } from './client-ip';
import { LogSampler } from './log-sampler';
import { FixedWindowRateLimiter } from './rate-limiter';
import {
  BodyTimeoutError,
  BodyTooLargeError,
  RequestAbortedError,
  announcesTooLargeBody,
  readRawBody,
} from './raw-body';
import { RESPONSE_BODIES, invalidEventBody, invalidSignatureBody, respondJson } from './responses';

/** Seconds a provider is asked to wait after a 503 (JetStream unreachable, slow or full). */
const UNAVAILABLE_RETRY_AFTER_SECONDS = '5';
const RATE_LIMIT_WINDOW_MS = 60_000;
/** Rejected-request log lines: at most this many per window, the rest counted in the next line written. */
const REJECTION_LOG_LINES = 10;
const REJECTION_LOG_WINDOW_MS = 10_000;
/** C0 controls and DEL: never part of an event id or type, and CR/LF would break the message headers. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
/** Longest event id or type taken: both travel in message headers (`Nats-Msg-Id`, `Berth-Event-Type`). */
const MAX_EVENT_FIELD_LENGTH = 256;

/** Why an event's id or type cannot be stored (it would never be, however often the provider resends it). */
function unstorableEvent(event: DeliveredEvent): 'control_characters' | 'too_long' | undefined {
  if (CONTROL_CHARACTERS.test(event.eventId) || CONTROL_CHARACTERS.test(event.type)) return 'control_characters';
  if (event.eventId.length > MAX_EVENT_FIELD_LENGTH || event.type.length > MAX_EVENT_FIELD_LENGTH) return 'too_long';
  return undefined;
}

/** What every event of one verified delivery is stored with: its receive time and the provider headers kept. */
interface DeliveryFacts {
  readonly receivedAt: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What {@link WebhookRoute} needs. */
export interface WebhookRouteOptions {
  /** Switched-on providers, by name. */
  readonly providers: ReadonlyMap<string, ProviderEndpoint>;
  /** Every provider name the gateway knows, switched on or not (metrics label); others count as `unknown`. */
  readonly knownProviderNames: readonly string[];
  readonly publisher: WebhookPublisher;
  readonly metrics: GatewayMetrics;
  readonly logger: BerthLogger;
  readonly clock: Clock;
  readonly maxBodyBytes: number;
  /** Longest time a request body may take to arrive (408 past it). */
  readonly bodyTimeoutMs: number;
  /** Bodies read at once per client IP before any signature check (429 past it). */
  readonly maxBodiesPerIp: number;
  /** Requests, signed or rejected, per client IP and provider per minute; 0 = no limit. */
  readonly rateLimitPerMinute: number;
  /** Whose address a request counts against. */
  readonly clientIp: ClientIpOptions;
}

/**
 * `POST /webhooks/:provider`, in this order: 404 for a provider that is not switched on; 429 at once, body unread,
 * for a client IP and provider past its rate limit or holding `maxBodiesPerIp` bodies open already; raw body read
 * with a hard size limit (413) and deadline (408); signature verified over the exact bytes with every secret (400,
 * nothing published, the rejection counted by the rate limit and its log line sampled); rate limit (429 +
 * Retry-After); an event id or type holding control characters or longer than 256 characters answered 400; unhandled types answered 200 and
 * dropped; handled events published to JetStream, answered 200 only once every PubAck is back (a duplicate is also
 * 200), 503 + Retry-After when JetStream cannot take them now.
 */
export class WebhookRoute {
  private readonly knownProviderNames: ReadonlySet<string>;
  private readonly rateLimiter?: FixedWindowRateLimiter;
  private readonly bodySlots: BodySlots;
  private readonly rejectionLog = new LogSampler({
    linesPerWindow: REJECTION_LOG_LINES,
    windowMs: REJECTION_LOG_WINDOW_MS,
  });

  constructor(private readonly options: WebhookRouteOptions) {
    this.knownProviderNames = new Set(options.knownProviderNames);
    this.bodySlots = new BodySlots(options.maxBodiesPerIp);
    if (options.rateLimitPerMinute > 0) {
      this.rateLimiter = new FixedWindowRateLimiter({
        limit: options.rateLimitPerMinute,
        windowMs: RATE_LIMIT_WINDOW_MS,
      });
    }
  }

  /** Serves one request; `provider` is the route parameter. */
  readonly handle = async (request: IncomingMessage, response: ServerResponse, params: RouteParams): Promise<void> => {
    const name = params.provider;
    const provider = this.options.providers.get(name);
    if (provider === undefined) {
      this.finish(
        response,
        this.knownProviderNames.has(name) ? name : UNKNOWN_PROVIDER_LABEL,
        'not_found',
        404,
        RESPONSE_BODIES.notFound,
      );
      return;
    }
    const receivedAt = this.options.clock.now();
    const ip = clientIp(request, this.options.clientIp);
    const limitKey = `${name}|${ip}`;
    if (this.rateLimiter?.isExhausted(limitKey, receivedAt.getTime())) {
      this.refuseUnread(response, name, this.rateLimiter.retryAfterSeconds(limitKey, receivedAt.getTime()));
      return;
    }
    if (!this.bodySlots.tryAcquire(ip)) {
      this.refuseUnread(response, name, 1);
      return;
    }
    let rawBody: Buffer | undefined;
    try {
      rawBody = await this.readBody(request, response, name);
    } finally {
      this.bodySlots.release(ip);
    }
    if (rawBody === undefined) return;

    const verified = provider.verify(rawBody, request.headers);
    const decision = this.rateLimiter?.hit(limitKey, receivedAt.getTime());
    if (!verified.ok) {
      const suppressed = this.rejectionLog.take(receivedAt.getTime());
      if (suppressed !== undefined) {
        this.options.logger.info(
          { provider: name, reason: verified.reason, detail: verified.message, ip, suppressed },
          'Webhook signature rejected',
        );
      }
      this.finish(response, name, 'invalid_signature', 400, invalidSignatureBody(verified.reason));
      return;
    }
    if (decision !== undefined && !decision.allowed) {
      this.finish(response, name, 'rate_limited', 429, RESPONSE_BODIES.rateLimited, [
        'Retry-After',
        String(decision.retryAfterSeconds),
      ]);
      return;
    }

    await this.publishVerified(response, provider, verified, rawBody, {
      receivedAt: receivedAt.toISOString(),
      headers: provider.keptHeaders(request.headers),
    });
  };

  /** 429 before the body is read; the connection is closed rather than drained. */
  private refuseUnread(response: ServerResponse, provider: string, retryAfterSeconds: number): void {
    this.finish(response, provider, 'rate_limited', 429, RESPONSE_BODIES.rateLimited, [
      'Retry-After',
      String(retryAfterSeconds),
      'Connection',
      'close',
    ]);
  }

  /** Reads the body under the size limit and deadline; answers 413 or 408 itself and returns undefined then. */
  private async readBody(
    request: IncomingMessage,
    response: ServerResponse,
    provider: string,
  ): Promise<Buffer | undefined> {
    try {
      if (announcesTooLargeBody(request, this.options.maxBodyBytes))
        throw new BodyTooLargeError(this.options.maxBodyBytes);
      return await readRawBody(request, {
        limitBytes: this.options.maxBodyBytes,
        timeoutMs: this.options.bodyTimeoutMs,
      });
    } catch (error) {
      if (error instanceof BodyTooLargeError || error instanceof BodyTimeoutError) {
        // The rest of the body is not read: close the connection after answering instead of draining it.
        const close = ['Connection', 'close'];
        if (error instanceof BodyTooLargeError)
          this.finish(response, provider, 'too_large', 413, RESPONSE_BODIES.tooLarge, close);
        else this.finish(response, provider, 'body_timeout', 408, RESPONSE_BODIES.bodyTimeout, close);
        return undefined;
      }
      // Nobody is left to answer.
      if (error instanceof RequestAbortedError) return undefined;
      throw error;
    }
  }

  private async publishVerified(
    response: ServerResponse,
    provider: ProviderEndpoint,
    verified: VerificationSuccess,
    rawBody: Buffer,
    delivery: DeliveryFacts,
  ): Promise<void> {
    const name = provider.name;
    const events = provider.extract(verified, rawBody);
    if (events.unusable.length > 0) {
      this.options.logger.warn(
        { provider: name, eventId: verified.eventId, problems: events.unusable },
        'Signed webhook content dropped: unusable',
      );
    }
    const problem = events.handled.map(unstorableEvent).find((found) => found !== undefined);
    if (problem !== undefined) {
      this.options.logger.warn(
        { provider: name, eventId: JSON.stringify(verified.eventId.slice(0, MAX_EVENT_FIELD_LENGTH)), problem },
        'Signed webhook refused: an event id or type cannot be stored',
      );
      this.finish(response, name, 'invalid_event', 400, invalidEventBody(problem));
      return;
    }
    if (events.handled.length === 0) {
      this.finish(response, name, 'ignored', 200, RESPONSE_BODIES.ignored);
      return;
    }
    let outcome: PublishOutcome;
    try {
      outcome =
        events.handled.length === 1
          ? await this.publishOne(name, events.handled[0], delivery)
          : await this.publishAll(name, events.handled, delivery);
    } catch (error) {
      this.options.logger.warn(
        { provider: name, eventId: verified.eventId, err: error },
        'Webhook not stored: JetStream unavailable',
      );
      this.finish(response, name, 'unavailable', 503, RESPONSE_BODIES.unavailable, [
        'Retry-After',
        UNAVAILABLE_RETRY_AFTER_SECONDS,
      ]);
      return;
    }
    this.finish(response, name, outcome === 'duplicate' ? 'duplicate' : 'accepted', 200, RESPONSE_BODIES.received);
  }

  private async publishOne(provider: string, event: DeliveredEvent, delivery: DeliveryFacts): Promise<PublishOutcome> {
    const startedAt = performance.now();
    const outcome = await this.options.publisher.publish({
      provider,
      eventId: event.eventId,
      type: event.type,
      receivedAt: delivery.receivedAt,
      headers: delivery.headers,
      data: event.data,
    });
    this.options.metrics.observePublish(provider, (performance.now() - startedAt) / 1000);
    return outcome;
  }

  /** Publishes a batch's events concurrently; `duplicate` only when every one of them was. */
  private async publishAll(
    provider: string,
    events: DeliveredEvent[],
    delivery: DeliveryFacts,
  ): Promise<PublishOutcome> {
    const outcomes = await Promise.all(events.map((event) => this.publishOne(provider, event, delivery)));
    return outcomes.every((outcome) => outcome === 'duplicate') ? 'duplicate' : 'stored';
  }

  private finish(
    response: ServerResponse,
    provider: string,
    outcome: InboundOutcome,
    status: number,
    body: string,
    extraHeaders?: readonly string[],
  ): void {
    this.options.metrics.countInbound(provider, outcome);
    respondJson(response, status, body, extraHeaders);
  }
}
