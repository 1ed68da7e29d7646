/**
 * Sends webhooks to a running gateway over HTTP, signed as the providers sign them: Stripe with the `stripe`
 * library's `generateTestHeaderString`, Clerk with the `svix` library's `Webhook.sign`, a GitHub delivery (the
 * `github` preset of `WEBHOOK_PROVIDERS`) as GitHub documents it, `sha256=` and the hex HMAC-SHA256 of the body
 * (`@octokit/webhooks-methods` ships as an ES module only, which the soak's CommonJS runtime cannot load). Each
 * send signs afresh (as a provider's retry does), and options spoil the signature in the ways providers and
 * attackers do.
 */
import { createHmac, randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { Webhook } from 'svix';

/** The gateway's answer. */
export interface GatewayAnswer {
  status: number;
  body: string;
  /** Milliseconds from sending the request to reading the whole answer. */
  elapsedMs: number;
}

/** A Stripe webhook secret (`whsec_` + random). */
export function newStripeSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

/** A Svix/Clerk signing secret (`whsec_` + base64 of 24 random bytes, the form Svix issues). */
export function newSvixSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** How to sign (or mis-sign) one Stripe request. */
export interface StripeSendOptions {
  /** Unix seconds of the signature; now when unset. */
  timestamp?: number;
  /** Sign with this secret instead of the gateway's. */
  secret?: string;
  /** Sign these bytes but send the event's (a tampered body). */
  signedPayload?: string;
  /** Send no `Stripe-Signature` header. */
  omitSignature?: boolean;
}

/** How to sign (or mis-sign) one Clerk request. */
export interface ClerkSendOptions {
  /** Time of the signature (`svix-timestamp`); now when unset. */
  signedAt?: Date;
  secret?: string;
  signedPayload?: string;
  /** Leave these Svix headers out. */
  omitHeaders?: ('svix-id' | 'svix-timestamp' | 'svix-signature')[];
}

/** A Clerk webhook body as Clerk sends it: `{ type, object: 'event', timestamp, data }`. */
export interface ClerkEventBody {
  type: string;
  object?: 'event';
  /** Milliseconds since the epoch. */
  timestamp?: number;
  data: { id: string } & Record<string, unknown>;
}

/** Signs and posts webhooks to one gateway. */
export class WebhookSender {
  /** Used only to sign; it makes no API calls. */
  private readonly stripe = new Stripe('sk_test_signing_only');

  constructor(
    readonly gatewayUrl: string,
    readonly secrets: { stripe: string; clerk: string },
  ) {}

  /** Posts a Stripe event (an object or its exact JSON text) to `/webhooks/stripe`. */
  async sendStripe(event: object | string, options: StripeSendOptions = {}): Promise<GatewayAnswer> {
    const payload = typeof event === 'string' ? event : JSON.stringify(event);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!options.omitSignature) {
      headers['stripe-signature'] = this.stripe.webhooks.generateTestHeaderString({
        payload: options.signedPayload ?? payload,
        secret: options.secret ?? this.secrets.stripe,
        timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
      });
    }
    return this.post('stripe', payload, headers);
  }

  /** Posts a Clerk event, delivered by Svix as message `msgId` (Clerk's event id), to `/webhooks/clerk`. */
  async sendClerk(
    msgId: string,
    event: ClerkEventBody | string,
    options: ClerkSendOptions = {},
  ): Promise<GatewayAnswer> {
    const payload = typeof event === 'string' ? event : JSON.stringify({ object: 'event', ...event });
    const signedAt = options.signedAt ?? new Date();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'svix-id': msgId,
      'svix-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
      'svix-signature': new Webhook(options.secret ?? this.secrets.clerk).sign(
        msgId,
        signedAt,
        options.signedPayload ?? payload,
      ),
    };
    for (const omitted of options.omitHeaders ?? []) delete headers[omitted];
    return this.post('clerk', payload, headers);
  }

  /**
   * Posts a GitHub delivery to `/webhooks/<name>` (the name of its `WEBHOOK_PROVIDERS` entry, `github` by default),
   * signed with `secret` as GitHub signs it (`X-Hub-Signature-256`, HMAC-SHA256 of the body).
   */
  async sendGithub(
    delivery: string,
    event: string,
    body: object,
    secret: string,
    name = 'github',
  ): Promise<GatewayAnswer> {
    const payload = JSON.stringify(body);
    return this.post(name, payload, {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': delivery,
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`,
    });
  }

  private async post(provider: string, payload: string, headers: Record<string, string>): Promise<GatewayAnswer> {
    const started = performance.now();
    const response = await fetch(`${this.gatewayUrl}/webhooks/${provider}`, { method: 'POST', headers, body: payload });
    const body = await response.text();
    return { status: response.status, body, elapsedMs: Math.round(performance.now() - started) };
  }
}
