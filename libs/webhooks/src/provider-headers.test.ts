import { keptProviderHeaders } from './provider-headers';
import { webhookPreset } from './presets/catalog';

describe('keptProviderHeaders', () => {
  it('keeps only the allow-listed headers present once, in lower case', () => {
    const kept = keptProviderHeaders(
      {
        'X-GitHub-Event': 'push',
        'x-github-delivery': 'd-1',
        cookie: 'a=b',
        authorization: 'Bearer x',
        'x-hub-signature-256': ['sha256=1', 'sha256=2'],
      },
      webhookPreset('github')!.keptHeaders,
    );
    expect(kept).toEqual({ 'x-github-event': 'push', 'x-github-delivery': 'd-1' });
  });

  it('leaves out empty, over-long and control-character values', () => {
    const kept = keptProviderHeaders(
      { 'webhook-id': '', 'webhook-timestamp': 'x'.repeat(1025), 'webhook-signature': 'v1,a\u0001b' },
      ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
    );
    expect(kept).toEqual({});
  });

  it('never lists cookies or authorization for any preset', () => {
    for (const name of [
      'github',
      'shopify',
      'slack',
      'twilio',
      'paddle',
      'linear',
      'resend',
      'standard-webhooks',
      'svix',
    ]) {
      const names = webhookPreset(name)!.keptHeaders;
      expect(names.length).toBeGreaterThan(0);
      expect(names.filter((header) => header !== header.toLowerCase() || /cookie|authorization/.test(header))).toEqual(
        [],
      );
    }
  });
});
