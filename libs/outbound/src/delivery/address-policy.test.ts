import { createAddressPolicy } from './address-policy';
import { PUBLIC_ADDRESSES, REFUSED_ADDRESSES } from './test-support/address-cases';

describe('createAddressPolicy', () => {
  it('refuses every non-public class by default', () => {
    const policy = createAddressPolicy();
    for (const [ip, addressClass] of REFUSED_ADDRESSES)
      expect([ip, policy.allows(ip)]).toEqual([ip, { allowed: false, addressClass }]);
    for (const ip of PUBLIC_ADDRESSES) expect([ip, policy.allows(ip)]).toEqual([ip, { allowed: true }]);
  });

  it('allows exactly the listed private ranges', () => {
    const policy = createAddressPolicy({ allowPrivateNetworks: ['127.0.0.0/8', '::1/128', '10.1.0.0/16'] });
    expect(policy.allows('127.0.0.1')).toEqual({ allowed: true });
    expect(policy.allows('127.9.9.9')).toEqual({ allowed: true });
    expect(policy.allows('::1')).toEqual({ allowed: true });
    expect(policy.allows('::ffff:127.0.0.1')).toEqual({ allowed: true });
    expect(policy.allows('10.1.200.3')).toEqual({ allowed: true });
    expect(policy.allows('10.2.0.1')).toEqual({ allowed: false, addressClass: 'private' });
    expect(policy.allows('169.254.169.254')).toEqual({ allowed: false, addressClass: 'link-local' });
    expect(policy.allows('64:ff9b::7f00:1')).toEqual({ allowed: false, addressClass: 'loopback' });
    expect(policy.allows('not-an-ip')).toEqual({ allowed: false, addressClass: 'invalid' });
  });

  it('takes a single address as a one-address range', () => {
    const policy = createAddressPolicy({ allowPrivateNetworks: ['192.168.1.10'] });
    expect(policy.allows('192.168.1.10')).toEqual({ allowed: true });
    expect(policy.allows('192.168.1.11')).toEqual({ allowed: false, addressClass: 'private' });
  });

  it.each(['10.0.0.0/33', '::1/129', 'localhost', '10.0.0.0/8/8', '10.0.0.0/x', ''])(
    'refuses the invalid range %j at creation',
    (range) => {
      expect(() => createAddressPolicy({ allowPrivateNetworks: [range] })).toThrow(RangeError);
    },
  );

  it('allows ports 80 and 443 only by default, and exactly the listed ports and ranges when configured', () => {
    const strict = createAddressPolicy();
    expect([80, 443].map((port) => strict.allowsPort(port))).toEqual([true, true]);
    expect([22, 25, 6379, 8080, 8443, 27017, 0, 65535].map((port) => strict.allowsPort(port))).toEqual(
      Array(8).fill(false),
    );
    const configured = createAddressPolicy({ allowedPorts: ['443', '8000-8099'] });
    expect([443, 8000, 8050, 8099].map((port) => configured.allowsPort(port))).toEqual([true, true, true, true]);
    expect([80, 7999, 8100].map((port) => configured.allowsPort(port))).toEqual([false, false, false]);
  });

  it.each(['0', '65536', '80-', '90-80', 'http', '1.5', ''])('refuses the invalid port %j at creation', (port) => {
    expect(() => createAddressPolicy({ allowedPorts: [port] })).toThrow(RangeError);
  });
});
