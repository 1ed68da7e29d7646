import { Webhook } from 'svix';
import { verifySvixSignature } from './svix';
import { BODY, NOW, SECRET, describeV1SchemeCases } from './v1-scheme.test-cases';
import { ManualClock } from '@berth/contract/testing';

describe('verifySvixSignature', () => {
  describeV1SchemeCases({
    headerNames: { id: 'svix-id', timestamp: 'svix-timestamp', signature: 'svix-signature' },
    sign: (secret, msgId, signedAt, body) => new Webhook(secret).sign(msgId, signedAt, body),
    verify: verifySvixSignature,
  });

  it("agrees with the library's own verify() for a delivery signed just now", () => {
    const now = new Date();
    const headers = {
      'svix-id': 'msg_live',
      'svix-timestamp': String(Math.floor(now.getTime() / 1000)),
      'svix-signature': new Webhook(SECRET).sign('msg_live', now, BODY),
    };
    expect(() => new Webhook(SECRET).verify(BODY, headers)).not.toThrow();
    expect(verifySvixSignature({ rawBody: BODY, headers, secrets: [SECRET] })).toMatchObject({
      ok: true,
      eventId: 'msg_live',
    });
  });

  it('does not accept unbranded webhook-* headers (those go to verifyStandardWebhook)', () => {
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(NOW.getTime() / 1000)),
      'webhook-signature': new Webhook(SECRET).sign('msg_1', NOW, BODY),
    };
    expect(
      verifySvixSignature({ rawBody: BODY, headers, secrets: [SECRET], clock: new ManualClock(NOW) }),
    ).toMatchObject({
      ok: false,
      reason: 'missing_header',
    });
  });
});
