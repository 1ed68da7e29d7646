import { Webhook } from 'standardwebhooks';
import { verifyStandardWebhook } from './standard-webhooks';
import { BODY, SECRET, describeV1SchemeCases } from './v1-scheme.test-cases';
import { ManualClock } from '@berth/contract/testing';

describe('verifyStandardWebhook', () => {
  describeV1SchemeCases({
    headerNames: { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' },
    sign: (secret, msgId, signedAt, body) => new Webhook(secret).sign(msgId, signedAt, body),
    verify: verifyStandardWebhook,
  });

  it("agrees with the library's own verify() for a delivery signed just now", () => {
    const headers = { 'webhook-id': 'msg_live', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
    const signed = { ...headers, 'webhook-signature': new Webhook(SECRET).sign('msg_live', new Date(), BODY) };
    expect(new Webhook(SECRET).verify(BODY, signed)).toEqual(JSON.parse(BODY));
    expect(verifyStandardWebhook({ rawBody: BODY, headers: signed, secrets: [SECRET] })).toMatchObject({
      ok: true,
      eventId: 'msg_live',
    });
  });

  it('accepts a bare base64 secret (no whsec_ prefix), as the library does', () => {
    const bare = SECRET.slice('whsec_'.length);
    const now = new Date();
    const headers = {
      'webhook-id': 'm',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign('m', now, BODY),
    };
    expect(verifyStandardWebhook({ rawBody: BODY, headers, secrets: [bare], clock: new ManualClock(now) }).ok).toBe(
      true,
    );
  });
});
