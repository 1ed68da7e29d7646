/**
 * What the webhook-handler tests share: test processors for three catalog providers (GitHub, Shopify, a Standard
 * Webhooks sender) that record every call, and signing helpers made with each provider's own library or scheme.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Module } from '@nestjs/common';
import { OnWebhook, UnrecoverableError, WebhookProcessor, type ReceivedWebhook } from '@berth/webhook-handlers';

export const GITHUB_SECRET = `gh-${randomBytes(16).toString('hex')}`;
export const SHOPIFY_SECRET = `shpss_${randomBytes(16).toString('hex')}`;
export const STANDARD_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

/** The gateway's `WEBHOOK_PROVIDERS` for these tests: three catalog presets, declared by name. */
export const TEST_PROVIDERS = JSON.stringify([
  { name: 'gh', preset: 'github', secrets: [GITHUB_SECRET] },
  { name: 'shop', preset: 'shopify', secrets: [SHOPIFY_SECRET] },
  { name: 'acme', preset: 'standard-webhooks', secrets: [STANDARD_SECRET] },
]);

/** One call of a test handler: which handler, and what it received. */
export interface HandlerCall {
  handler: string;
  id: string;
  type: string;
  attempt: number;
  body: unknown;
  headers: Readonly<Record<string, string>>;
  at: number;
}

/** Every call of the test handlers, and how the Standard Webhooks handler should behave per event id. */
export const calls: HandlerCall[] = [];
/** Event ids whose handler throws on its first N attempts (a transient failure). */
export const failFirst = new Map<string, number>();
/** Event ids whose handler throws `UnrecoverableError` (poison) while listed. */
export const poison = new Set<string>();

function record(handler: string, event: ReceivedWebhook): void {
  calls.push({
    handler,
    id: event.id,
    type: event.type,
    attempt: event.attempt,
    body: event.body,
    headers: event.headers,
    at: Date.now(),
  });
}

export const callsOf = (id: string): HandlerCall[] => calls.filter((call) => call.id === id);

@WebhookProcessor({ provider: 'gh' })
export class GithubPullRequests {
  @OnWebhook(['pull_request.opened', 'pull_request.reopened'])
  async opened(event: ReceivedWebhook): Promise<void> {
    record('GithubPullRequests.opened', event);
  }
}

@WebhookProcessor({ provider: 'shop' })
export class ShopifyOrders {
  @OnWebhook('orders/create')
  async created(event: ReceivedWebhook): Promise<void> {
    record('ShopifyOrders.created', event);
  }
}

@WebhookProcessor({ provider: 'acme' })
export class AcmeEvents {
  @OnWebhook('*')
  async any(event: ReceivedWebhook): Promise<void> {
    record('AcmeEvents.any', event);
    if (poison.has(event.id)) throw new UnrecoverableError(`acme event ${event.id} can never be applied`);
    const failures = failFirst.get(event.id) ?? 0;
    if (event.attempt <= failures) throw new Error(`acme is down (attempt ${event.attempt})`);
  }
}

/** A feature module holding the three processors, as a product team's module would. */
@Module({ providers: [GithubPullRequests, ShopifyOrders, AcmeEvents] })
export class TestWebhookHandlersModule {}

/** GitHub's headers for `body`, signed by `@octokit/webhooks-methods`. */
export async function githubHeaders(body: string, event: string, delivery: string): Promise<Record<string, string>> {
  return {
    'content-type': 'application/json',
    'x-github-event': event,
    'x-github-delivery': delivery,
    'x-hub-signature-256': await githubSign(GITHUB_SECRET, body),
  };
}

/** Shopify's headers for `body`: base64 HMAC-SHA256 of the body with the app secret. */
export function shopifyHeaders(body: string, topic: string, webhookId: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': topic,
    'x-shopify-webhook-id': webhookId,
    'x-shopify-shop-domain': 'berth-test.myshopify.com',
    'x-shopify-hmac-sha256': createHmac('sha256', SHOPIFY_SECRET).update(body).digest('base64'),
  };
}

/** Standard Webhooks headers for `body`, signed by the `standardwebhooks` library now. */
export function standardHeaders(body: string, id: string): Record<string, string> {
  const now = new Date();
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new StandardWebhook(STANDARD_SECRET).sign(id, now, body),
  };
}

/** A unique id with a prefix. */
export function uniqueId(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}
