import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook, WEBHOOK_SECRET_BYTES } from './sign-webhook';

describe('signWebhook', () => {
  const payload = '{"type":"invoice.paid","data":{"id":"in_1"}}';

  it('signs once per secret, each verifiable by the standardwebhooks library during a rotation', () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const timestamp = new Date();
    const signature = signWebhook({ messageId: 'msg_1', timestamp, payload, secrets: [oldSecret, newSecret] });
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(new Webhook(oldSecret).verify(payload, headers)).toEqual(JSON.parse(payload));
    expect(new Webhook(newSecret).verify(payload, headers)).toEqual(JSON.parse(payload));
    expect(() => new Webhook(generateWebhookSecret()).verify(payload, headers)).toThrow('No matching signature');
  });

  it('signs the exact bytes, id and timestamp', () => {
    const secret = generateWebhookSecret();
    const at = new Date('2030-01-01T00:00:00Z');
    const signature = signWebhook({ messageId: 'msg_1', timestamp: at, payload, secrets: [secret] });
    expect(signature).toBe(new Webhook(secret).sign('msg_1', at, payload));
    expect(signature).not.toBe(signWebhook({ messageId: 'msg_2', timestamp: at, payload, secrets: [secret] }));
    expect(signature).not.toBe(
      signWebhook({ messageId: 'msg_1', timestamp: new Date(at.getTime() + 1000), payload, secrets: [secret] }),
    );
    expect(signature).not.toBe(
      signWebhook({ messageId: 'msg_1', timestamp: at, payload: `${payload} `, secrets: [secret] }),
    );
  });

  it('refuses to sign with no secret', () => {
    expect(() => signWebhook({ messageId: 'm', timestamp: new Date(), payload, secrets: [] })).toThrow(RangeError);
  });
});

describe('generateWebhookSecret', () => {
  it('is whsec_ and base64 of enough random bytes, different every time', () => {
    const secrets = new Set(Array.from({ length: 50 }, generateWebhookSecret));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(WEBHOOK_SECRET_BYTES);
    }
    expect(WEBHOOK_SECRET_BYTES).toBeGreaterThanOrEqual(24);
  });
});
