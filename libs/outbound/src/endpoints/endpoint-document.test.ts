import { activeSecrets, subscribesTo } from './endpoint-document';
import { assertEndpointUrl, InvalidEndpointError } from './endpoint-operations';

describe('endpoints', () => {
  it('signs with the current secret and those still inside their overlap', () => {
    const now = new Date('2026-11-30T08:00:00Z');
    const secrets = [
      { secret: 'whsec_new', createdAt: now, expiresAt: null },
      { secret: 'whsec_old', createdAt: now, expiresAt: new Date(now.getTime() + 1000) },
      { secret: 'whsec_older', createdAt: now, expiresAt: new Date(now.getTime() - 1) },
    ];
    expect(activeSecrets({ secrets }, now)).toEqual(['whsec_new', 'whsec_old']);
  });

  it('subscribes to every type when the list is empty or has *', () => {
    expect(subscribesTo({ eventTypes: [] }, 'a.b')).toBe(true);
    expect(subscribesTo({ eventTypes: ['*'] }, 'a.b')).toBe(true);
    expect(subscribesTo({ eventTypes: ['a.c'] }, 'a.b')).toBe(false);
  });

  it('takes http and https URLs without credentials or fragments', () => {
    expect(() => assertEndpointUrl('https://hooks.example.com/x?y=1')).not.toThrow();
    for (const url of ['ftp://example.com', 'https://user:pw@example.com', 'https://example.com/#a', 'not a url']) {
      expect(() => assertEndpointUrl(url)).toThrow(InvalidEndpointError);
    }
  });
});
