import { ConfigError } from '@berth/config';
import { CLERK_HANDLED_EVENT_TYPES, STRIPE_HANDLED_EVENT_TYPES } from '@berth/webhooks';
import { loadConfig } from './config';

const STANDARD_SECRET = `whsec_${Buffer.from('a signing key of 24 bytes').toString('base64')}`;
const HMAC_SECRET = 'an-hmac-secret-of-24-chars';

describe('loadConfig', () => {
  it('applies the defaults, with Stripe on as soon as it has a secret', () => {
    const config = loadConfig({ STRIPE_WEBHOOK_SECRET: 'whsec_a' });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      natsUrl: 'nats://127.0.0.1:4222',
      maxBodyBytes: 1024 * 1024,
      rateLimitPerMinute: 600,
      publishTimeoutMs: 1500,
      streamReplicas: 1,
      trustProxy: false,
      serviceName: 'gateway',
    });
    expect(config.providers).toEqual([
      {
        name: 'stripe',
        scheme: 'stripe',
        secrets: ['whsec_a'],
        eventTypes: { kind: 'only', types: STRIPE_HANDLED_EVENT_TYPES },
        idField: 'id',
        typeField: 'type',
        storeOnly: false,
      },
    ]);
    expect(config.knownProviderNames).toEqual(['stripe', 'clerk']);
  });

  it('bounds unauthenticated clients, the queue per subject and the proxy hops by default, and serves health apart', () => {
    const config = loadConfig({ STRIPE_WEBHOOK_SECRET: 'whsec_a' });
    expect(config).toMatchObject({
      healthPort: 9463,
      healthHost: '0.0.0.0',
      unauthenticated: { maxBodiesPerIp: 8, bodyTimeoutMs: 10_000 },
      http: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 },
      batching: { maxPendingItemsPerKey: 1000, maxPendingBytesPerKey: 16 * 1024 * 1024 },
      trustProxyHops: 1,
    });
    expect(loadConfig({ NODE_ENV: 'test' }).healthPort).toBe(9463);
    expect(loadConfig({ HEALTH_PORT: '9999', TRUST_PROXY_HOPS: '2', WEBHOOK_QUEUE_MAX_EVENTS: '5' })).toMatchObject({
      healthPort: 9999,
      trustProxyHops: 2,
      batching: { maxPendingItemsPerKey: 5 },
    });
    expect(() => loadConfig({ TRUST_PROXY_HOPS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_MAX_BODIES_PER_IP: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_BODY_TIMEOUT_MS: '5' })).toThrow(ConfigError);
  });

  it('switches Stripe off with BILLING_PROVIDER=none or no secret, and Clerk on with its secrets', () => {
    expect(loadConfig({ BILLING_PROVIDER: 'none', STRIPE_WEBHOOK_SECRET: 'whsec_a' }).providers).toEqual([]);
    expect(loadConfig({}).providers).toEqual([]);
    const clerk = loadConfig({ CLERK_WEBHOOK_SIGNING_SECRET: 'whsec_new, whsec_old' }).providers;
    expect(clerk).toEqual([
      {
        name: 'clerk',
        scheme: 'svix',
        secrets: ['whsec_new', 'whsec_old'],
        eventTypes: { kind: 'only', types: CLERK_HANDLED_EVENT_TYPES },
        idField: 'id',
        typeField: 'type',
        storeOnly: false,
      },
    ]);
  });

  it('takes event type overrides, * meaning every type', () => {
    const config = loadConfig({
      STRIPE_WEBHOOK_SECRET: 'a',
      STRIPE_EVENT_TYPES: 'invoice.paid, charge.refunded',
      CLERK_WEBHOOK_SIGNING_SECRET: 'b',
      CLERK_EVENT_TYPES: '*',
    });
    expect(config.providers.map((p) => p.eventTypes)).toEqual([
      { kind: 'only', types: ['invoice.paid', 'charge.refunded'] },
      { kind: 'all' },
    ]);
  });

  it('reads configured providers from WEBHOOK_PROVIDERS with their defaults', () => {
    const config = loadConfig({
      WEBHOOK_PROVIDERS: JSON.stringify([
        { name: 'acme', scheme: 'standard-webhooks', secrets: [STANDARD_SECRET], batch: { eventsField: 'events' } },
        {
          name: 'legacy',
          scheme: 'hmac-sha256',
          secrets: [HMAC_SECRET],
          eventTypes: ['a.b'],
          idField: 'uuid',
          signatureHeader: 'X-Sig',
          timestampHeader: 'X-Time',
        },
      ]),
    });
    expect(config.providers).toEqual([
      {
        name: 'acme',
        scheme: 'standard-webhooks',
        secrets: [STANDARD_SECRET],
        batch: { eventsField: 'events' },
        idField: 'id',
        typeField: 'type',
        eventTypes: { kind: 'all' },
        storeOnly: false,
      },
      {
        name: 'legacy',
        scheme: 'hmac-sha256',
        secrets: [HMAC_SECRET],
        idField: 'uuid',
        typeField: 'type',
        signatureHeader: 'x-sig',
        timestampHeader: 'x-time',
        eventTypes: { kind: 'only', types: ['a.b'] },
        storeOnly: false,
      },
    ]);
    expect(config.knownProviderNames).toEqual(['stripe', 'clerk', 'acme', 'legacy']);
  });

  it('reads catalog presets by name, and which providers are stored without a consumer', () => {
    const config = loadConfig({
      STRIPE_WEBHOOK_SECRET: 'whsec_stripe',
      WEBHOOK_STORE_ONLY_PROVIDERS: 'stripe',
      WEBHOOK_PROVIDERS: JSON.stringify([
        { name: 'gh', preset: 'github', secrets: [HMAC_SECRET], eventTypes: ['pull_request.opened'] },
        {
          name: 'sms',
          preset: 'twilio',
          secrets: [HMAC_SECRET],
          url: 'https://hooks.example.com/webhooks/sms',
          storeOnly: true,
        },
      ]),
    });
    expect(
      config.providers.map(({ name, scheme, preset, url, storeOnly, eventTypes }) => ({
        name,
        scheme,
        preset,
        url,
        storeOnly,
        eventTypes,
      })),
    ).toEqual([
      {
        name: 'stripe',
        scheme: 'stripe',
        preset: undefined,
        url: undefined,
        storeOnly: true,
        eventTypes: expect.objectContaining({ kind: 'only' }),
      },
      {
        name: 'gh',
        scheme: 'preset',
        preset: 'github',
        url: undefined,
        storeOnly: false,
        eventTypes: { kind: 'only', types: ['pull_request.opened'] },
      },
      {
        name: 'sms',
        scheme: 'preset',
        preset: 'twilio',
        url: 'https://hooks.example.com/webhooks/sms',
        storeOnly: true,
        eventTypes: { kind: 'all' },
      },
    ]);
    expect(config.consumerWaitMs).toBe(60_000);
  });

  it.each([
    ['a 1-character HMAC secret', JSON.stringify([{ name: 'a', scheme: 'hmac-sha256', secrets: ['s'] }])],
    [
      'a 15-character HMAC secret',
      JSON.stringify([{ name: 'a', scheme: 'hmac-sha256', secrets: ['0123456789abcde'] }]),
    ],
    [
      'a short Standard Webhooks key',
      JSON.stringify([{ name: 'a', scheme: 'standard-webhooks', secrets: ['whsec_x'] }]),
    ],
    ['a short preset secret', JSON.stringify([{ name: 'gh', preset: 'github', secrets: ['short'] }])],
    ['a second secret too short', JSON.stringify([{ name: 'gh', preset: 'shopify', secrets: [HMAC_SECRET, 'x'] }])],
    ['an unknown preset', JSON.stringify([{ name: 'gh', preset: 'gitlab', secrets: [HMAC_SECRET] }])],
    ['Twilio without its public url', JSON.stringify([{ name: 'sms', preset: 'twilio', secrets: [HMAC_SECRET] }])],
    [
      'a preset and a scheme at once',
      JSON.stringify([{ name: 'gh', preset: 'github', scheme: 'hmac-sha256', secrets: [HMAC_SECRET] }]),
    ],
  ])('refuses WEBHOOK_PROVIDERS with %s', (_name, value) => {
    expect(() => loadConfig({ WEBHOOK_PROVIDERS: value })).toThrow(/WEBHOOK_PROVIDERS/);
  });

  it.each([
    ['not JSON', '[{'],
    ['a reserved name', JSON.stringify([{ name: 'stripe', scheme: 'hmac-sha256', secrets: ['s'] }])],
    ['a name unfit for a subject', JSON.stringify([{ name: 'a.b', scheme: 'hmac-sha256', secrets: ['s'] }])],
    [
      'a duplicate name',
      JSON.stringify([
        { name: 'a', scheme: 'hmac-sha256', secrets: ['s'] },
        { name: 'a', scheme: 'hmac-sha256', secrets: ['t'] },
      ]),
    ],
    ['no secret', JSON.stringify([{ name: 'a', scheme: 'hmac-sha256', secrets: [] }])],
    ['an unknown scheme', JSON.stringify([{ name: 'a', scheme: 'md5', secrets: ['s'] }])],
    [
      'HMAC header names on another scheme',
      JSON.stringify([{ name: 'a', scheme: 'standard-webhooks', secrets: ['s'], signatureHeader: 'x-sig' }]),
    ],
    ['an unknown field', JSON.stringify([{ name: 'a', scheme: 'hmac-sha256', secrets: ['s'], secret: 's' }])],
  ])('rejects WEBHOOK_PROVIDERS with %s', (_name, value) => {
    expect(() => loadConfig({ WEBHOOK_PROVIDERS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_PROVIDERS: value })).toThrow(/WEBHOOK_PROVIDERS/);
  });

  it('names every invalid variable', () => {
    try {
      loadConfig({ PORT: 'http', WEBHOOK_MAX_BODY_BYTES: '0', BILLING_PROVIDER: 'paddle', PUBLISH_TIMEOUT_MS: '5000' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as ConfigError).issues.map((issue) => issue.split(':')[0])).toEqual([
        'PORT',
        'BILLING_PROVIDER',
        'WEBHOOK_MAX_BODY_BYTES',
        'PUBLISH_TIMEOUT_MS',
      ]);
    }
  });
});
