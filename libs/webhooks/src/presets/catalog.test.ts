import { sign as githubSign, verify as githubVerify } from '@octokit/webhooks-methods';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { Paddle } from '@paddle/paddle-node-sdk';
import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import { getHmac } from '@shopify/shopify-api/test-helpers';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { createHmac } from 'node:crypto';
import { WEBHOOK_PRESETS, webhookPreset, type PresetVerifyInput } from '../index';
import { systemClock } from '@berth/contract';
import { ManualClock } from '@berth/contract/testing';

const at = (seconds: number) => new ManualClock(seconds * 1000);
const verify = (preset: string, input: Omit<PresetVerifyInput, 'rawBody'> & { rawBody: string | Buffer }) =>
  webhookPreset(preset)!.verify({ ...input, rawBody: Buffer.from(input.rawBody) });

describe('github', () => {
  const headers = (signature: string) => ({
    'x-hub-signature-256': signature,
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    'x-github-event': 'pull_request',
  });

  it('verifies GitHub\'s documented vector (secret "It\'s a Secret to Everybody", body "Hello, World!") up to the body\'s JSON', () => {
    const result = verify('github', {
      rawBody: 'Hello, World!',
      headers: headers('sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17'),
      secrets: ["It's a Secret to Everybody"],
    });
    expect(result).toMatchObject({ ok: false, reason: 'malformed', message: expect.stringContaining('not JSON') });
  });

  it('verifies a delivery signed by @octokit/webhooks-methods: id from X-GitHub-Delivery, type from X-GitHub-Event and action', async () => {
    const body = JSON.stringify({ action: 'opened', number: 7, pull_request: { id: 1 } });
    const secret = 'gh-webhook-secret-0123456789';
    const signature = await githubSign(secret, body);
    expect(await githubVerify(secret, body, signature)).toBe(true);
    expect(
      verify('github', { rawBody: body, headers: headers(signature), secrets: ['old-secret-0123456789', secret] }),
    ).toMatchObject({
      ok: true,
      eventId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      type: 'pull_request.opened',
      secretIndex: 1,
      payload: { number: 7 },
    });
    expect(
      verify('github', { rawBody: body.replace('7', '8'), headers: headers(signature), secrets: [secret] }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(
      verify('github', {
        rawBody: body,
        headers: { ...headers(signature), 'x-github-delivery': undefined },
        secrets: [secret],
      }),
    ).toMatchObject({ ok: false, reason: 'missing_header' });
    expect(
      verify('github', { rawBody: body, headers: headers(signature.replace('sha256=', 'sha1=')), secrets: [secret] }),
    ).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('types an event without action by X-GitHub-Event alone', async () => {
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const secret = 'gh-webhook-secret-0123456789';
    expect(
      verify('github', {
        rawBody: body,
        headers: { ...headers(await githubSign(secret, body)), 'x-github-event': 'push' },
        secrets: [secret],
      }),
    ).toMatchObject({ ok: true, type: 'push' });
  });
});

describe('shopify', () => {
  // HMAC-SHA256 of the exact body with the app's client secret, base64 (Shopify's documented scheme). The vector is
  // checked by Shopify's own library (`@shopify/shopify-api`'s `webhooks.validate`, as a Shopify app verifies a
  // delivery), and deliveries signed by its test helper `getHmac` are verified by the preset.
  const body = '{"id":820982911946154508,"email":"jon@example.com","total_price":"12.00"}';
  const secret = 'shpss_0123456789abcdef0123456789abcdef';
  const vector = 'Ebva85qZS4HNblHs/53ihiqqwowNMammJIJxaXshRLc=';
  const headers = (hmac: string) => ({
    'x-shopify-hmac-sha256': hmac,
    'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    'x-shopify-topic': 'orders/create',
    'x-shopify-shop-domain': 'shop.myshopify.com',
    'x-shopify-api-version': '2026-01',
  });
  const shopify = shopifyApi({
    apiKey: 'berth-test-app',
    apiSecretKey: secret,
    hostName: 'berth.example.com',
    apiVersion: ApiVersion.January26,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error, log: () => undefined },
  });
  const shopifyAccepts = async (rawBody: string, hmac: string): Promise<boolean> =>
    (
      await shopify.webhooks.validate({
        rawBody,
        rawRequest: { headers: headers(hmac), method: 'POST', url: '/webhooks/shopify' },
        rawResponse: {},
      })
    ).valid;

  it("agrees with Shopify's library on the vector: the same signature valid, a changed body refused", async () => {
    expect(await shopifyAccepts(body, vector)).toBe(true);
    expect(await shopifyAccepts(body.replace('12.00', '1.00'), vector)).toBe(false);
  });

  it("verifies a delivery signed by Shopify's getHmac; id from X-Shopify-Webhook-Id, type from X-Shopify-Topic", () => {
    const signed = JSON.stringify({ id: 820982911946154, email: 'ana@example.com', note: 'caf\u00e9 \u2615' });
    expect(
      verify('shopify', { rawBody: signed, headers: headers(getHmac(signed, secret)), secrets: [secret] }),
    ).toMatchObject({
      ok: true,
      eventId: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      type: 'orders/create',
      payload: { email: 'ana@example.com' },
    });
    expect(verify('shopify', { rawBody: body, headers: headers(vector), secrets: [secret] })).toMatchObject({
      ok: true,
    });
    expect(
      verify('shopify', { rawBody: body.replace('12.00', '1.00'), headers: headers(vector), secrets: [secret] }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(
      verify('shopify', { rawBody: signed, headers: headers(getHmac(signed, `${secret}x`)), secrets: [secret] }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(verify('shopify', { rawBody: body, headers: headers('not base64!'), secrets: [secret] })).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
  });
});

describe('slack', () => {
  // Slack's documented example ("Verifying requests from Slack"): signing secret, timestamp, slash-command body and
  // the signature Slack shows for them.
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const body =
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
  const headers = {
    'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    'x-slack-request-timestamp': '1531420618',
  };

  it("verifies Slack's documented vector; a slash command has no id, so the id hashes the signed content", () => {
    const result = verify('slack', { rawBody: body, headers, secrets: [secret], clock: at(1531420618 + 10) });
    expect(result).toMatchObject({
      ok: true,
      type: 'slash_command',
      eventId: expect.stringMatching(/^sha256-[0-9a-f]{40}$/),
      payload: { command: '/webhook-collect', team_id: 'T1DC2JH3J' },
    });
    expect(result.ok && JSON.parse(result.storedBody.toString())).toMatchObject({ user_name: 'roadrunner' });
    expect(verify('slack', { rawBody: body, headers, secrets: [secret], clock: at(1531420618 + 10) })).toEqual(result);
  });

  it('refuses a timestamp outside 5 minutes, and a tampered body', () => {
    expect(verify('slack', { rawBody: body, headers, secrets: [secret], clock: at(1531420618 + 301) })).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(
      verify('slack', {
        rawBody: body.replace('roadrunner', 'coyote'),
        headers,
        secrets: [secret],
        clock: at(1531420618),
      }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('reads an Events API callback: id event_id, type event.type', () => {
    const json = JSON.stringify({
      type: 'event_callback',
      event_id: 'Ev08MFMKH6',
      event: { type: 'app_mention', text: 'hi' },
    });
    const signature = `v0=${createHmac('sha256', secret).update(`v0:1531420618:${json}`).digest('hex')}`;
    expect(
      verify('slack', {
        rawBody: json,
        headers: { ...headers, 'x-slack-signature': signature },
        secrets: [secret],
        clock: at(1531420618),
      }),
    ).toMatchObject({ ok: true, eventId: 'Ev08MFMKH6', type: 'app_mention' });
  });
});

describe('twilio', () => {
  // Twilio's documented example ("Webhooks security"): auth token 12345, the URL, the POST parameters, and the
  // X-Twilio-Signature Twilio computes for them.
  const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const body = 'CallSid=CA1234567890ABCDE&Caller=%2B12349013030&Digits=1234&From=%2B12349013030&To=%2B18005551212';

  it("verifies Twilio's documented vector over URL and sorted parameters; no id, so the id hashes the signed content", () => {
    const result = verify('twilio', {
      rawBody: body,
      headers: { 'x-twilio-signature': '0/KCTR6DLpKmkAf8muzZqo1nDgQ=' },
      secrets: ['12345'],
      url,
    });
    expect(result).toMatchObject({
      ok: true,
      type: 'request',
      eventId: expect.stringMatching(/^sha256-/),
      payload: { CallSid: 'CA1234567890ABCDE', Digits: '1234' },
    });
    expect(
      verify('twilio', {
        rawBody: body,
        headers: { 'x-twilio-signature': '0/KCTR6DLpKmkAf8muzZqo1nDgQ=' },
        secrets: ['12345'],
        url: 'https://mycompany.com/other',
      }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(
      verify('twilio', {
        rawBody: body.replace('1234&', '9999&'),
        headers: { 'x-twilio-signature': '0/KCTR6DLpKmkAf8muzZqo1nDgQ=' },
        secrets: ['12345'],
        url,
      }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it('takes I-Twilio-Idempotency-Token as the id when Twilio sends it, and types status callbacks', () => {
    const statusBody = 'MessageSid=SM1&MessageStatus=delivered';
    const signed = `${url}MessageSidSM1MessageStatusdelivered`;
    const signature = createHmac('sha1', 'twilio-auth-token-0123456789').update(signed).digest('base64');
    expect(
      verify('twilio', {
        rawBody: statusBody,
        headers: { 'x-twilio-signature': signature, 'i-twilio-idempotency-token': 'idem-1' },
        secrets: ['twilio-auth-token-0123456789'],
        url,
      }),
    ).toMatchObject({ ok: true, eventId: 'idem-1', type: 'message.delivered' });
  });
});

describe('paddle', () => {
  it("verifies ts=;h1= as Paddle's SDK does (its webhooks helper accepts the same header); id event_id, type event_type", async () => {
    const secret = 'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI1vEI';
    const body = JSON.stringify({
      event_id: 'evt_01h8bzakzx3hm2fmen703n5q45',
      event_type: 'subscription.updated',
      occurred_at: '2026-12-01T09:00:00Z',
      data: { id: 'sub_1' },
    });
    const paddle = new Paddle('pdl_sdbx_apikey_test_only');
    const ts = Math.floor(Date.now() / 1000);
    const header = `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${body}`).digest('hex')}`;
    expect(await paddle.webhooks.isSignatureValid(body, secret, header)).toBe(true);
    expect(
      verify('paddle', { rawBody: body, headers: { 'paddle-signature': header }, secrets: [secret] }),
    ).toMatchObject({ ok: true, eventId: 'evt_01h8bzakzx3hm2fmen703n5q45', type: 'subscription.updated' });
    expect(await paddle.webhooks.isSignatureValid(body.replace('sub_1', 'sub_2'), secret, header)).toBe(false);
    expect(
      verify('paddle', {
        rawBody: body.replace('sub_1', 'sub_2'),
        headers: { 'paddle-signature': header },
        secrets: [secret],
      }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(
      verify('paddle', {
        rawBody: body,
        headers: { 'paddle-signature': header },
        secrets: [secret],
        clock: new ManualClock((ts + 301) * 1000),
      }),
    ).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });
});

describe('linear', () => {
  // Linear's documented scheme: hex HMAC-SHA256 of the body, and the body's webhookTimestamp within a minute. Linear's
  // SDK verifies only (`LinearWebhookClient.verify` of `@linear/sdk/webhooks`, as a Linear integration does): it
  // checks the vector, and refuses what the preset refuses, at the same clock.
  const secret = 'lin_wh_0123456789abcdef0123456789';
  const sentAt = 1893456000000;
  const body = `{"action":"create","type":"Issue","data":{"id":"iss_1","title":"Bug"},"webhookTimestamp":${sentAt}}`;
  const vector = '47ac85adfa8bcf52913be25302ab68496aa0592d947693d07f64dcfecad9b222';
  const headers = (signature: string) => ({
    'linear-signature': signature,
    'linear-delivery': '234d1a4e-b617-4388-90fe-adc3633d6b72',
    'linear-event': 'Issue',
  });
  const linearAccepts = (rawBody: string, signature: string, key = secret): boolean => {
    try {
      return new LinearWebhookClient(key).verify(Buffer.from(rawBody), signature);
    } catch {
      return false;
    }
  };
  afterEach(() => jest.useRealTimers());

  it("verifies what Linear's SDK verifies, at the same clock; id Linear-Delivery, type type.action", () => {
    jest.useFakeTimers({ now: sentAt + 30_000 });
    expect(linearAccepts(body, vector)).toBe(true);
    expect(
      verify('linear', { rawBody: body, headers: headers(vector), secrets: [secret], clock: systemClock }),
    ).toMatchObject({
      ok: true,
      eventId: '234d1a4e-b617-4388-90fe-adc3633d6b72',
      type: 'Issue.create',
    });

    const tampered = body.replace('Bug', 'Bog');
    expect(linearAccepts(tampered, vector)).toBe(false);
    expect(
      verify('linear', { rawBody: tampered, headers: headers(vector), secrets: [secret], clock: systemClock }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
    const otherSecret = 'lin_wh_another-secret-0123456789';
    expect(linearAccepts(body, vector, otherSecret)).toBe(false);
    expect(
      verify('linear', { rawBody: body, headers: headers(vector), secrets: [otherSecret], clock: systemClock }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });

  it("refuses, as Linear's SDK does, a webhookTimestamp more than a minute away, either way", () => {
    for (const offset of [61_000, -61_000]) {
      jest.useFakeTimers({ now: sentAt + offset });
      expect([offset, linearAccepts(body, vector)]).toEqual([offset, false]);
      expect(
        verify('linear', { rawBody: body, headers: headers(vector), secrets: [secret], clock: systemClock }),
      ).toMatchObject({ ok: false, reason: 'timestamp_out_of_tolerance' });
    }
  });
});

describe('Standard Webhooks, Svix and Resend', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = JSON.stringify({ type: 'email.delivered', data: { email_id: 'e_1' } });
  const now = new Date();

  it('verifies deliveries signed by the standardwebhooks and svix libraries; id from the id header, type from the body', () => {
    const standard = new StandardWebhook(secret).sign('msg_std_1', now, body);
    expect(
      verify('standard-webhooks', {
        rawBody: body,
        headers: {
          'webhook-id': 'msg_std_1',
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': standard,
        },
        secrets: [secret],
      }),
    ).toMatchObject({ ok: true, eventId: 'msg_std_1', type: 'email.delivered' });
    const svix = new SvixWebhook(secret).sign('msg_svix_1', now, body);
    const svixHeaders = {
      'svix-id': 'msg_svix_1',
      'svix-timestamp': String(Math.floor(now.getTime() / 1000)),
      'svix-signature': svix,
    };
    expect(verify('resend', { rawBody: body, headers: svixHeaders, secrets: [secret] })).toMatchObject({
      ok: true,
      eventId: 'msg_svix_1',
      type: 'email.delivered',
    });
    expect(verify('svix', { rawBody: body, headers: svixHeaders, secrets: [secret] })).toMatchObject({
      ok: true,
      eventId: 'msg_svix_1',
    });
    expect(
      verify('resend', { rawBody: body.replace('e_1', 'e_2'), headers: svixHeaders, secrets: [secret] }),
    ).toMatchObject({ ok: false, reason: 'bad_signature' });
  });
});

describe('the catalog', () => {
  it('names every provider once, and asks at least 16 characters of every secret', () => {
    expect(Object.keys(WEBHOOK_PRESETS).sort()).toEqual([
      'github',
      'linear',
      'paddle',
      'resend',
      'shopify',
      'slack',
      'standard-webhooks',
      'svix',
      'twilio',
    ]);
    for (const preset of Object.values(WEBHOOK_PRESETS)) expect(preset.minSecretLength).toBeGreaterThanOrEqual(16);
    expect(webhookPreset('toString')).toBeUndefined();
  });
});
