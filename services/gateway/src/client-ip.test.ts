import type { IncomingMessage } from 'node:http';
import { clientIp } from './client-ip';

const requestFrom = (peer: string, forwarded?: string): IncomingMessage =>
  ({
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
    socket: { remoteAddress: peer },
  }) as unknown as IncomingMessage;

describe('clientIp', () => {
  it('is the peer unless the proxy is trusted', () => {
    expect(clientIp(requestFrom('10.0.0.9', '203.0.113.1'), { trustProxy: false, trustProxyHops: 1 })).toBe('10.0.0.9');
  });

  it('takes the entry the outermost trusted proxy appended, never one the client wrote', () => {
    const request = requestFrom('10.0.0.9', '6.6.6.6, 203.0.113.1 ,198.51.100.7');
    expect(clientIp(request, { trustProxy: true, trustProxyHops: 1 })).toBe('198.51.100.7');
    expect(clientIp(request, { trustProxy: true, trustProxyHops: 2 })).toBe('203.0.113.1');
    expect(clientIp(request, { trustProxy: true, trustProxyHops: 0 })).toBe('6.6.6.6');
    expect(clientIp(request, { trustProxy: true, trustProxyHops: 9 })).toBe('6.6.6.6');
  });

  it('falls back to the peer without a usable entry', () => {
    expect(clientIp(requestFrom('10.0.0.9'), { trustProxy: true, trustProxyHops: 1 })).toBe('10.0.0.9');
    expect(clientIp(requestFrom('10.0.0.9', ''), { trustProxy: true, trustProxyHops: 1 })).toBe('10.0.0.9');
  });
});
