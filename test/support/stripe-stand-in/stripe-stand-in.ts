import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { holdFault } from '@berth/local-infra/testing';
import { handleControlRequest } from './control-api';
import { send } from './http';
import {
  checkoutSessionObject,
  customerObject,
  deletedCustomerObject,
  disputeObject,
  earlyFraudWarningObject,
  refundObject,
  subscriptionObject,
  type StripeObject,
  type SubscriptionItemFields,
} from './fixtures';

/** One API request the stand-in answered (control requests under `/_stand-in/` are not recorded). */
export interface RecordedRequest {
  method: string;
  /** The path without query, e.g. `/v1/subscriptions`. */
  path: string;
  query: Record<string, string>;
  /** The status answered; undefined while the answer is delayed ({@link StripeStandIn.setLatency}). */
  status?: number;
}

/** Options for {@link StripeStandIn}. */
export interface StripeStandInOptions {
  /** Defaults to a free port. */
  port?: number;
  /** Loopback only by default. */
  host?: string;
}

type Fields = Record<string, unknown>;

/**
 * A local stand-in for the few Stripe API endpoints billing-sync reads, served over plain HTTP so the real `stripe`
 * client talks to it (`new Stripe(key, { host: '127.0.0.1', port, protocol: 'http' })`):
 * `GET /v1/customers/:id`, `GET /v1/subscriptions?customer=…&status=…`, `GET /v1/disputes/:id`,
 * `GET /v1/refunds/:id`, `GET /v1/radar/early_fraud_warnings/:id`, `GET /v1/checkout/sessions/:id`. Tests set its state with the `set…` methods,
 * read what was asked with {@link requestCount}, and make it fail with {@link failNext} / {@link failAll}. Other
 * processes can do the same over HTTP under `/_stand-in/` (see `main.ts`).
 */
export class StripeStandIn {
  private server?: Server;
  private readonly customers = new Map<string, StripeObject>();
  private readonly subscriptions = new Map<string, StripeObject[]>();
  private readonly disputes = new Map<string, StripeObject>();
  private readonly refunds = new Map<string, StripeObject>();
  private readonly fraudWarnings = new Map<string, StripeObject>();
  private readonly checkoutSessions = new Map<string, StripeObject>();
  private failuresLeft = 0;
  private failingForever = false;
  private failureStatus = 503;
  private readonly recorded: RecordedRequest[] = [];
  private latencyMs = 0;
  private readonly requestWaiters: {
    matches: (request: RecordedRequest) => boolean;
    resolve: (request: RecordedRequest) => void;
  }[] = [];

  constructor(private readonly options: StripeStandInOptions = {}) {}

  /** Starts listening; resolves with the base URL to give billing-sync as `STRIPE_API_BASE`. */
  async start(): Promise<string> {
    const server = createServer((request, response) => void this.route(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    this.server = server;
    return this.url;
  }

  /** Stops listening and closes kept-alive connections. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The port it listens on. */
  get port(): number {
    if (!this.server) throw new Error('Stripe stand-in is not started');
    return (this.server.address() as AddressInfo).port;
  }

  /** `http://host:port`, the `STRIPE_API_BASE` of billing-sync. */
  get url(): string {
    return `http://${this.options.host ?? '127.0.0.1'}:${this.port}`;
  }

  /** Stores a customer (Stripe's defaults around `fields`). */
  setCustomer(fields: { id: string } & Fields): void {
    this.customers.set(fields.id, customerObject(fields));
  }

  /** Makes the customer a deleted one (`{ id, deleted: true }`). */
  deleteCustomer(id: string): void {
    this.customers.set(id, deletedCustomerObject(id));
  }

  /** Replaces the customer's subscriptions. */
  setSubscriptions(
    customerId: string,
    subscriptions: ({ id: string; status?: string; items?: SubscriptionItemFields[] } & Fields)[],
  ): void {
    this.subscriptions.set(
      customerId,
      subscriptions.map((subscription) => subscriptionObject({ ...subscription, customer: customerId })),
    );
  }

  /** Stores a dispute. */
  setDispute(fields: { id: string } & Fields): void {
    this.disputes.set(fields.id, disputeObject(fields));
  }

  /** Stores a refund. */
  setRefund(fields: { id: string } & Fields): void {
    this.refunds.set(fields.id, refundObject(fields));
  }

  /** Stores a Radar early fraud warning. */
  setEarlyFraudWarning(fields: { id: string } & Fields): void {
    this.fraudWarnings.set(fields.id, earlyFraudWarningObject(fields));
  }

  /** Stores a Checkout Session (`customer`, `client_reference_id`, `status` default `complete`). */
  setCheckoutSession(fields: { id: string } & Fields): void {
    this.checkoutSessions.set(fields.id, checkoutSessionObject(fields));
  }

  /** Answers the next `count` API requests with `status` (503: Stripe's "api_error"). */
  failNext(count: number, status = 503): void {
    this.failuresLeft = count;
    this.failureStatus = status;
  }

  /** Answers every API request with `status` until {@link recover}. */
  failAll(status = 503): void {
    this.failingForever = true;
    this.failureStatus = status;
  }

  /** Stops failing. */
  recover(): void {
    this.failingForever = false;
    this.failuresLeft = 0;
  }

  /** Delays every API answer by `ms` (0 to stop), to have handlers in flight when a test needs them there. */
  setLatency(ms: number): void {
    this.latencyMs = ms;
  }

  /** Resolves when an API request for `path` (with these query values) arrives; at once if one already did. */
  waitForRequest(path: string, query: Record<string, string> = {}): Promise<RecordedRequest> {
    const matches = (request: RecordedRequest): boolean =>
      request.path === path && Object.entries(query).every(([key, value]) => request.query[key] === value);
    const seen = this.recorded.find(matches);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.requestWaiters.push({ matches, resolve }));
  }

  /** Every API request received so far, oldest first. */
  get requests(): readonly RecordedRequest[] {
    return this.recorded;
  }

  /** How many API requests hit `path` (any path when unset), optionally with these query values. */
  requestCount(path?: string, query: Record<string, string> = {}): number {
    return this.recorded.filter(
      (request) =>
        (path === undefined || request.path === path) &&
        Object.entries(query).every(([key, value]) => request.query[key] === value),
    ).length;
  }

  /** Forgets all state, failures and recorded requests. */
  reset(): void {
    for (const map of [
      this.customers,
      this.subscriptions,
      this.disputes,
      this.refunds,
      this.fraudWarnings,
      this.checkoutSessions,
    ])
      map.clear();
    this.recover();
    this.latencyMs = 0;
    this.recorded.length = 0;
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://stand-in');
    try {
      if (url.pathname.startsWith('/_stand-in/')) {
        await handleControlRequest(this, request, url, response);
        return;
      }
      const recorded: RecordedRequest = {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams.entries()),
      };
      this.recorded.push(recorded);
      for (const waiter of this.requestWaiters.filter((candidate) => candidate.matches(recorded))) {
        this.requestWaiters.splice(this.requestWaiters.indexOf(waiter), 1);
        waiter.resolve(recorded);
      }
      if (this.latencyMs > 0) await holdFault(this.latencyMs, 'Stripe answers slowly (the configured latency)');
      const [status, body] = this.answer(request, url.pathname, recorded.query);
      recorded.status = status;
      send(response, status, body);
    } catch (error) {
      send(response, 500, stripeError('api_error', `Stand-in failure: ${String(error)}`));
    }
  }

  private answer(request: IncomingMessage, path: string, query: Record<string, string>): [number, unknown] {
    if (!/^Bearer \S+/.test(request.headers.authorization ?? '')) {
      return [401, stripeError('invalid_request_error', 'You did not provide an API key.')];
    }
    if (this.failingForever || this.failuresLeft > 0) {
      if (this.failuresLeft > 0) this.failuresLeft -= 1;
      const type =
        this.failureStatus === 429
          ? 'rate_limit_error'
          : this.failureStatus >= 500
            ? 'api_error'
            : 'invalid_request_error';
      return [this.failureStatus, stripeError(type, `Stand-in answers ${this.failureStatus} as told`)];
    }
    if (request.method !== 'GET')
      return [404, stripeError('invalid_request_error', `Unrecognized request URL (${request.method}: ${path})`)];
    if (path === '/v1/subscriptions') return [200, this.listSubscriptions(query)];
    const match = /^\/v1\/(customers|disputes|refunds|radar\/early_fraud_warnings|checkout\/sessions)\/([^/]+)$/.exec(
      path,
    );
    if (!match) return [404, stripeError('invalid_request_error', `Unrecognized request URL (GET: ${path})`)];
    const [, resource, rawId] = match;
    const id = decodeURIComponent(rawId);
    const store = {
      customers: this.customers,
      disputes: this.disputes,
      refunds: this.refunds,
      'radar/early_fraud_warnings': this.fraudWarnings,
      'checkout/sessions': this.checkoutSessions,
    }[resource]!;
    const found = store.get(id);
    if (!found)
      return [
        404,
        {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            param: 'id',
            message: `No such ${resource.replace(/s$/, '').replace(/^.*\//, '')}: '${id}'`,
          },
        },
      ];
    return [200, found];
  }

  private listSubscriptions(query: Record<string, string>): unknown {
    const all = query.customer
      ? (this.subscriptions.get(query.customer) ?? [])
      : [...this.subscriptions.values()].flat();
    const status = query.status;
    const data = all.filter((subscription) =>
      status === 'all' ? true : status ? subscription.status === status : subscription.status !== 'canceled',
    );
    return { object: 'list', data, has_more: false, url: '/v1/subscriptions' };
  }
}

function stripeError(type: string, message: string): unknown {
  return { error: { type, message } };
}
